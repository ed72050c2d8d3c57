// SPDX-License-Identifier: MIT
/*
 * Files behind mappings: found inside the sysroot by recorded path (as if
 * it were the root directory: decode/root.c) or in the build-id cache, read
 * once with libelf for executable segments, build-id and function symbols.
 * A file that is not ELF is a raw memory image.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auxfmt/elfnote.h"
#include "decode/internal.h"

static char *path_join(const char *dir, const char *path)
{
	size_t n = strlen(dir) + strlen(path) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s%s", dir, path[0] == '/' ? "" : "/", path);
	return s;
}

/* Why a file that qpt_sysroot_open() failed with @err is missing. */
static const char *missing_reason(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENOTDIR:
		return "not found";
	case -ELOOP:
		return "is in a symlink loop";
	case -QPT_E_UNSUPPORTED:
		return "is not a regular file";
	default:
		return strerror(-err); /* glibc: static for known values */
	}
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* By address; among aliases the preferred name first (as perf chooses):
 * sized, then global over local over weak, then fewer leading
 * underscores, then the longer name. */
static int sym_cmp(const void *a, const void *b)
{
	const struct qd_sym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	ux = underscores(x->name);
	uy = underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct symbuf {
	size_t cap, strcap, used;
	bool demangle;
};

/*
 * Room for @nsyms more symbols and @nstr more bytes of names: at least
 * twice what there was, so that appending one at a time stays linear.
 * A table's whole count is asked for at once where it is known, since
 * each move to a larger block costs a page fault per 4 KiB it fills.
 */
static int sym_room(struct qd_file *file, struct symbuf *sb, size_t nsyms,
		    size_t nstr)
{
	if (nsyms && sb->cap - file->nr_syms < nsyms) {
		size_t nc = file->nr_syms + nsyms;
		struct qd_sym *ns;

		if (nc < 2 * sb->cap)
			nc = 2 * sb->cap;
		ns = realloc(file->syms, nc * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		file->syms = ns;
		sb->cap = nc;
	}
	if (nstr && sb->strcap - sb->used < nstr) {
		size_t nc = sb->used + nstr;
		char *nt;

		if (nc < 2 * sb->strcap)
			nc = 2 * sb->strcap;
		if (nc < 8192)
			nc = 8192;
		nt = realloc(file->strtab, nc);
		if (!nt)
			return -ENOMEM;
		file->strtab = nt;
		sb->strcap = nc;
	}
	return 0;
}

/* Append a symbol; names are kept as offsets until the end of loading. */
static int add_sym(struct qd_file *file, struct symbuf *sb, uint64_t addr,
		   uint64_t size, unsigned rank, const char *name,
		   const char *suffix)
{
	char *dem = sb->demangle ? qpt_demangle(name) : NULL;
	size_t len, slen = strlen(suffix);

	if (dem)
		name = dem;
	len = strlen(name);

	if (file->nr_syms == sb->cap &&
	    sym_room(file, sb, sb->cap ? sb->cap : 256, 0)) {
		free(dem);
		return -ENOMEM;
	}
	if (sb->used + len + slen + 1 > sb->strcap &&
	    sym_room(file, sb, 0, len + slen + 1)) {
		free(dem);
		return -ENOMEM;
	}
	memcpy(file->strtab + sb->used, name, len);
	memcpy(file->strtab + sb->used + len, suffix, slen + 1);
	file->syms[file->nr_syms].name = (const char *)(uintptr_t)sb->used;
	file->syms[file->nr_syms].addr = addr;
	file->syms[file->nr_syms].size = size;
	file->syms[file->nr_syms].rank = rank;
	file->nr_syms++;
	sb->used += len + slen + 1;
	free(dem);
	return 0;
}

/*
 * A label in code (STT_NOTYPE in an executable section, such as ld.so's
 * _start): perf names instructions after them as it does functions.
 */
static bool is_code_label(Elf *elf, const GElf_Sym *sym)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE ||
	    sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(elf, sym->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* The size of @file's string table section @ndx (0: none, or more than
 * the file holds). */
static size_t names_size(const struct qd_file *file, Elf *elf, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB ||
	    sh.sh_size > file->size)
		return 0;
	return (size_t)sh.sh_size;
}

/* Function symbols of one symbol table section; appends to @file. */
static int load_symtab(struct qd_file *file, Elf *elf, Elf_Scn *scn,
		       GElf_Shdr *sh, struct symbuf *sb)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	int err;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	/* the most it can add, at once: a symbol for each entry and its
	 * names (not demangled) */
	if (n > data->d_size / sh->sh_entsize)
		n = data->d_size / sh->sh_entsize;
	err = sym_room(file, sb, n, names_size(file, elf, sh->sh_link));
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		unsigned bind;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if ((GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC &&
		     !is_code_label(elf, &sym)) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		err = add_sym(file, sb, sym.st_value, sym.st_size,
			      bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 2 : 1,
			      name, "");
		if (err)
			return err;
	}
	return 0;
}

/* A GOT entry and what its dynamic relocation names: a symbol, or
 * (none) an address, the addend. */
struct got_name {
	uint64_t got;
	const char *name; /* NULL: *ABS*+ADDEND */
	uint64_t addend;
};

static int got_cmp(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

/* At most this many relocations are read to name the PLT's slots. */
#define GOT_NAMES_MAX (1u << 20)

/* The relocations of @elf's SHT_RELA sections that name a symbol of a
 * table, or an IFUNC's resolver (IRELATIVE: no symbol), sorted by the GOT
 * entry they fill, into *@out (malloc'd); their number, or -ENOMEM.  The
 * other relocations without a symbol (RELATIVE: thousands in a C++
 * library) fill no entry a PLT stub jumps through. */
static long got_names(Elf *elf, struct got_name **out)
{
	struct got_name *g = NULL;
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *rdata, *ddata;
		GElf_Shdr sh, dsh;
		Elf_Scn *dyn;
		size_t i, k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize || !(dyn = elf_getscn(elf, sh.sh_link)) ||
		    !gelf_getshdr(dyn, &dsh) ||
		    !(rdata = elf_getdata(scn, NULL)) ||
		    !(ddata = elf_getdata(dyn, NULL)))
			continue;
		k = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < k && n < GOT_NAMES_MAX; i++) {
			const char *name = NULL;
			GElf_Rela r;
			GElf_Sym sym;

			if (!gelf_getrela(rdata, (int)i, &r))
				break;
			if (!GELF_R_SYM(r.r_info) &&
			    GELF_R_TYPE(r.r_info) != R_X86_64_IRELATIVE)
				continue;
			if (GELF_R_SYM(r.r_info) &&
			    (!gelf_getsym(ddata, (int)GELF_R_SYM(r.r_info),
					  &sym) ||
			     !(name =
				   elf_strptr(elf, dsh.sh_link, sym.st_name)) ||
			     !*name))
				continue;
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				struct got_name *ng =
				    realloc(g, nc * sizeof(*g));

				if (!ng) {
					free(g);
					return -ENOMEM;
				}
				g = ng;
				cap = nc;
			}
			g[n].got = r.r_offset;
			g[n].name = name;
			g[n++].addend = (uint64_t)r.r_addend;
		}
	}
	if (n)
		qsort(g, n, sizeof(*g), got_cmp);
	*out = g;
	return (long)n;
}

/* The GOT entry that the jmp *disp32(%rip) in the @size bytes at @b (at
 * @addr) reads, or 0 where there is none. */
static uint64_t slot_got(const uint8_t *b, size_t size, uint64_t addr)
{
	uint32_t disp;
	size_t k;

	for (k = 0; k + 6 <= size; k++) {
		if (b[k] != 0xff || b[k + 1] != 0x25)
			continue;
		disp = (uint32_t)b[k + 2] | (uint32_t)b[k + 3] << 8 |
		       (uint32_t)b[k + 4] << 16 | (uint32_t)b[k + 5] << 24;
		return addr + k + 6 + (uint64_t)(int64_t)(int32_t)disp;
	}
	return 0;
}

/* NAME@plt (or *ABS*+0xADDEND@plt) for each @ent-byte slot of section
 * @scn (@sh) from byte @first on whose jmp reads a GOT entry of @g. */
static int name_slots(struct qd_file *file, struct symbuf *sb, Elf_Scn *scn,
		      const GElf_Shdr *sh, size_t first, size_t ent,
		      const struct got_name *g, size_t n)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	struct got_name key = {0};
	const struct got_name *hit;
	char abs[32];
	size_t i;
	int err = 0;

	if (!data || !data->d_buf || data->d_size < sh->sh_size)
		return 0;
	for (i = first; i + ent <= sh->sh_size && !err; i += ent) {
		key.got = slot_got((const uint8_t *)data->d_buf + i, ent,
				   sh->sh_addr + i);
		hit = key.got ? bsearch(&key, g, n, sizeof(*g), got_cmp) : NULL;
		if (!hit)
			continue;
		if (!hit->name)
			snprintf(abs, sizeof(abs), "*ABS*+0x%llx",
				 (unsigned long long)hit->addend);
		err = add_sym(file, sb, sh->sh_addr + i, ent, 0,
			      hit->name ? hit->name : abs, "@plt");
	}
	return err;
}

/*
 * NAME@plt for the stubs of .plt (after the first slot, the resolver's),
 * .plt.sec and .plt.got, as objdump and gdb name them: a stub jumps
 * through the GOT entry that NAME's dynamic relocation fills (jmp
 * *disp32(%rip), after an endbr64 or a prefix); *ABS*+0xADDEND@plt where
 * it names no symbol (an IFUNC's IRELATIVE).  perf 6.1 takes .rela.plt's
 * entries for .plt's slots in order instead, which is wrong where they
 * are not (libc's IRELATIVE ones), and does not name .plt.got's.
 */
static int load_plt(struct qd_file *file, Elf *elf, struct symbuf *sb)
{
	static const struct {
		const char *name;
		size_t first, ent; /* 0: the section's entry size, or 8 */
	} kinds[] = {{".plt", 16, 16}, {".plt.sec", 0, 16}, {".plt.got", 0, 0}};
	struct got_name *g = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;
	long n = -1;
	int err = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;
		size_t ent;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(name, kinds[i].name))
				break;
		if (i == sizeof(kinds) / sizeof(kinds[0]))
			continue;
		if (n < 0 && (n = got_names(elf, &g)) < 0)
			return (int)n;
		ent = kinds[i].ent ? kinds[i].ent
		      : sh.sh_entsize >= 8 && sh.sh_entsize <= 64
			  ? sh.sh_entsize
			  : 8;
		if (n > 0)
			err = name_slots(file, sb, scn, &sh, kinds[i].first,
					 ent, g, (size_t)n);
	}
	free(g);
	return err;
}

static void read_build_id(struct qd_file *file, Elf *elf, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const uint8_t *desc;
	int n;

	if (!data || !data->d_buf)
		return;
	n = qpt_elf_note_build_id(data->d_buf, data->d_size,
				  data->d_type == ELF_T_NHDR8 ? 8 : 4, &desc);
	if (n <= 0)
		return;
	if (n > 20)
		n = 20;
	memcpy(file->build_id, desc, (size_t)n);
	file->build_id_size = (uint8_t)n;
}

void qd_bid_hex(const uint8_t *bid, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", bid[i]);
	out[2 * n] = '\0';
}

/*
 * The .symtab of the separate debug file for @file, found by build-id as
 * gdb and perf find it: SYSROOT/usr/lib/debug/.build-id/xx/yyyy.debug
 * (Debian's -dbg and -dbgsym packages).  Appends to @file's symbols;
 * returns 1 when a symbol table was loaded, 0 when there is none, or
 * -ENOMEM.  A debug file that does not parse is ignored.
 */
static int load_debug_symtab(const struct qd_files *files,
			     struct qd_file *file, struct symbuf *sb)
{
	char hex[2 * sizeof(file->build_id) + 1], sub[128];
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd, ret = 0;

	if (!file->build_id_size)
		return 0;
	qd_bid_hex(file->build_id, file->build_id_size, hex);
	snprintf(sub, sizeof(sub), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 hex, hex + 2);
	fd = qpt_sysroot_open(files->sysroot, sub, NULL);
	if (fd == -ENOMEM)
		return fd;
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && elf_kind(elf) == ELF_K_ELF &&
	       (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		ret = load_symtab(file, elf, scn, &sh, sb);
		if (!ret)
			ret = 1;
		break;
	}
	elf_end(elf);
	close(fd);
	return ret;
}

static int load_elf(const struct qd_files *files, struct qd_file *file,
		    int fd)
{
	struct symbuf sb = { 0, 0, 0, files->demangle };
	size_t nph, i;
	Elf_Scn *scn = NULL, *dynsym = NULL;
	bool have_symtab = false;
	Elf *elf;
	int err = 0;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph))
		goto out;
	file->is_elf = true;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		struct qd_seg *ns;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		ns = realloc(file->segs, (file->nr_segs + 1) * sizeof(*ns));
		if (!ns) {
			err = -ENOMEM;
			goto out;
		}
		file->segs = ns;
		ns[file->nr_segs].offset = ph.p_offset;
		ns[file->nr_segs].filesz = ph.p_filesz;
		ns[file->nr_segs].vaddr = ph.p_vaddr;
		file->nr_segs++;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			have_symtab = true;
			err = load_symtab(file, elf, scn, &sh, &sb);
			if (err)
				goto out;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
		} else if (sh.sh_type == SHT_NOTE && !file->build_id_size) {
			read_build_id(file, elf, scn);
		}
	}
	if (!have_symtab) {
		err = load_debug_symtab(files, file, &sb);
		if (err < 0)
			goto out;
		have_symtab = err > 0;
		err = 0;
	}
	if (!have_symtab && dynsym) {
		GElf_Shdr sh;

		if (gelf_getshdr(dynsym, &sh)) {
			err = load_symtab(file, elf, dynsym, &sh, &sb);
			if (err)
				goto out;
		}
	}
	err = load_plt(file, elf, &sb);
	if (err)
		goto out;
	for (i = 0; i < file->nr_syms; i++)
		file->syms[i].name =
			file->strtab + (uintptr_t)file->syms[i].name;
	if (file->nr_syms)
		qsort(file->syms, file->nr_syms, sizeof(*file->syms), sym_cmp);
out:
	elf_end(elf);
	return err;
}

static void unmap(struct qd_file *file)
{
	if (file->data)
		munmap((void *)file->data, (size_t)file->size);
	file->data = NULL;
}

/* Open @cand (inside @root when given) and read what we need; 0 when
 * opened, -errno otherwise. */
static int file_open(const struct qd_files *files, struct qd_file *file,
		     const char *root, const char *cand, bool raw)
{
	struct stat st;
	char *found;
	int fd, err;

	fd = qpt_sysroot_open(root, cand, &found);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		free(found);
		return err;
	}
	free(file->found);
	free(file->segs);
	free(file->syms);
	free(file->strtab);
	unmap(file);
	file->segs = NULL;
	file->syms = NULL;
	file->strtab = NULL;
	file->nr_segs = file->nr_syms = 0;
	file->build_id_size = 0;
	file->is_elf = false;
	file->found = found;
	file->size = (uint64_t)st.st_size;
	err = file->found ? 0 : -ENOMEM;
	if (!err && st.st_size) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			       fd, 0);

		if (m == MAP_FAILED)
			err = -errno;
		else
			file->data = m;
	}
	if (!err && !raw)
		err = load_elf(files, file, fd);
	file->raw = !file->is_elf;
	close(fd);
	return err;
}

static bool bid_matches(const struct qd_file *file, const uint8_t *bid,
			size_t n)
{
	if (!n || !file->is_elf || !file->build_id_size)
		return true;
	if (n > file->build_id_size)
		n = file->build_id_size;
	return !memcmp(file->build_id, bid, n);
}

/* Where to look first for @file: the vDSO's bytes that qpt record
 * --emulate keeps beside the recording (FILE.vdso), else the recorded
 * path (inside the sysroot: *@root). */
static char *first_candidate(const struct qd_files *files,
			     const struct qd_file *file, const char **root)
{
	char *cand;

	*root = NULL;
	if (strcmp(file->path, "[vdso]") || !files->data_path) {
		*root = files->sysroot;
		return strdup(file->path);
	}
	if (asprintf(&cand, "%s.vdso", files->data_path) < 0)
		return NULL;
	return cand;
}

/* Open @cand (inside @root when given; freed here, NULL: out of memory)
 * as @file: 1 when it opens and its build-id matches, 0 when not (*@err:
 * why), or -ENOMEM. */
static int try_candidate(const struct qd_files *files, struct qd_file *file,
			 const char *root, char *cand, const uint8_t *bid,
			 size_t bid_size, bool raw, int *err)
{
	if (!cand)
		return -ENOMEM;
	*err = file_open(files, file, root, cand, raw);
	free(cand);
	if (*err == -ENOMEM)
		return -ENOMEM;
	return !*err && bid_matches(file, bid, bid_size);
}

/* The build-id cache's file for @bid (perf's layouts: .build-id/xx/yyyy/elf
 * or vdso, or the older .build-id/xx/yyyy itself) under --buildid-dir
 * or ~/.debug; NULL with *@none when there is no cache to look in (no
 * directory given, HOME unset), or on out of memory. */
static char *cache_candidate(const struct qd_files *files, const uint8_t *bid,
			     size_t bid_size, bool *none)
{
	char hex[41], *dir, sub[64];
	const char *base = files->buildid_dir, *h = getenv("HOME");
	char *home = NULL;

	*none = !base && !h;
	if (*none)
		return NULL;
	if (!base) {
		home = path_join(h, ".debug");
		if (!home)
			return NULL;
		base = home;
	}
	qd_bid_hex(bid, bid_size, hex);
	snprintf(sub, sizeof(sub), ".build-id/%.2s/%s/elf", hex, hex + 2);
	dir = path_join(base, sub);
	if (dir && access(dir, R_OK)) {
		/* perf's [vdso] entries: .build-id/xx/yyyy/vdso */
		strcpy(sub + strlen(sub) - 3, "vdso");
		free(dir);
		dir = path_join(base, sub);
	}
	if (dir && access(dir, R_OK)) {
		/* older layout: .build-id/xx/yyyy is the file */
		sub[strlen(sub) - 5] = '\0';
		free(dir);
		dir = path_join(base, sub);
	}
	free(home);
	return dir;
}

/* Find @file: its recorded path (inside the sysroot), then by its build-id
 * in the build-id cache and through debuginfod.  0 (found or not:
 * file->found says), or -ENOMEM. */
static int file_locate(struct qd_files *files, struct qd_file *file,
		       const uint8_t *bid, size_t bid_size, bool raw)
{
	const char *root;
	char *cand;
	bool none;
	int err, ok;

	cand = first_candidate(files, file, &root);
	ok = try_candidate(files, file, root, cand, bid, bid_size, raw, &err);
	if (ok)
		return ok < 0 ? ok : 0;
	file->err = err ? err : -QPT_E_MISMATCH;
	file->reason = err ? missing_reason(err) : "build-id mismatch";
	if (bid_size > 20)
		bid_size = 20; /* as every reader bounds it: hex[41] */
	if (bid_size) {
		cand = cache_candidate(files, bid, bid_size, &none);
		ok = none ? 0 : try_candidate(files, file, NULL, cand, bid,
					      bid_size, raw, &err);
		if (ok)
			return ok < 0 ? ok : 0;
		if (strcmp(file->path, "[vdso]")) {
			err = qd_debuginfod_find(files, bid, bid_size, &cand);
			if (err == -ENOMEM)
				return err;
			ok = err ? 0
				 : try_candidate(files, file, NULL, cand, bid,
						 bid_size, raw, &err);
			if (ok)
				return ok < 0 ? ok : 0;
		}
	}
	unmap(file);
	free(file->found);
	file->found = NULL;
	return 0;
}

struct qd_file *qd_files_get(struct qd_files *files, const char *path,
			     const uint8_t *bid, size_t bid_size, bool raw)
{
	struct qd_file *file;

	for (file = files->head; file; file = file->next)
		if (!strcmp(file->path, path) && file->asked_raw == raw)
			return file;
	file = calloc(1, sizeof(*file));
	if (!file)
		return NULL;
	file->path = strdup(path);
	file->raw = file->asked_raw = raw;
	file->sysroot = files->sysroot;
	file->buildid_dir = files->buildid_dir;
	if (!file->path || file_locate(files, file, bid, bid_size, raw)) {
		unmap(file);
		free(file->path);
		free(file->found);
		free(file->segs);
		free(file->syms);
		free(file->strtab);
		free(file);
		return NULL;
	}
	if (raw && file->found)
		file->raw = true;
	file->next = files->head;
	files->head = file;
	return file;
}

void qd_files_free(struct qd_files *files)
{
	struct qd_file *f, *n;

	for (f = files->head; f; f = n) {
		n = f->next;
		unmap(f);
		free(f->path);
		free(f->found);
		free(f->segs);
		free(f->syms);
		free(f->strtab);
		qd_lines_free(f->lines);
		free(f);
	}
	files->head = NULL;
	qd_debuginfod_end(files);
}

const struct qd_sym *qd_file_sym_range(const struct qd_file *file,
				       uint64_t addr, uint64_t *from,
				       uint64_t *to)
{
	size_t lo = 0, hi = file->nr_syms;
	const struct qd_sym *s;
	uint64_t end;

	/* last symbol with addr <= @addr: the same for all up to the next */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (file->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*to = lo < file->nr_syms ? file->syms[lo].addr : UINT64_MAX;
	*from = 0;
	if (!lo)
		return NULL;
	s = &file->syms[lo - 1];
	/* back up over aliases to the preferred one */
	while (s > file->syms && s[-1].addr == s->addr)
		s--;
	*from = s->addr;
	if (!s->size)
		return s;
	end = s->addr + s->size;
	if (end < s->addr) /* a size that wraps: to the next one */
		return s;
	if (addr >= end) {
		*from = end;
		return NULL;
	}
	if (end < *to)
		*to = end;
	return s;
}

const struct qd_sym *qd_file_sym(const struct qd_file *file, uint64_t addr)
{
	uint64_t from, to;

	return qd_file_sym_range(file, addr, &from, &to);
}
