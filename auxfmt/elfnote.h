/* SPDX-License-Identifier: MIT */
/*
 * ELF notes: the one bounded walker over note bytes, shared by capture
 * (build-ids of the recorded files and the vDSO) and decode (build-ids of
 * the images it loads).  Libc only: the callers find the note sections
 * (libelf's elf_getdata() hands them out in host byte order).  Not
 * installed.
 */
#ifndef QPT_AUXFMT_ELFNOTE_H
#define QPT_AUXFMT_ELFNOTE_H

#include <stddef.h>
#include <stdint.h>

/* NT_GNU_BUILD_ID, as <elf.h> has it. */
#define QPT_NT_GNU_BUILD_ID 3u

/*
 * The descriptor of the first note of type @type named @name (its
 * n_namesz counts the NUL, as the gABI says) in [@buf, @buf + @len): the
 * notes of one SHT_NOTE section or PT_NOTE segment in host byte order,
 * each name and descriptor padded to @align (4; 8 for ELF_T_NHDR8 notes).
 * Sets *@desc (borrowed from @buf) and returns its size; 0 when no note
 * matches; -QPT_E_TRUNCATED when a note runs past @len before one
 * matched; -QPT_E_INVAL for an @align other than 4 or 8.
 */
int qpt_elf_note_find(const void *buf, size_t len, size_t align,
		      uint32_t type, const char *name, const uint8_t **desc);

/* The GNU build-id note ("GNU", NT_GNU_BUILD_ID): as qpt_elf_note_find. */
int qpt_elf_note_build_id(const void *buf, size_t len, size_t align,
			  const uint8_t **id);

#endif /* QPT_AUXFMT_ELFNOTE_H */
