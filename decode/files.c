// SPDX-License-Identifier: MIT
/*
 * Files behind mappings: found under the sysroot by recorded path or in the
 * build-id cache, read once with libelf for executable segments, build-id
 * and function symbols.  A file that is not ELF is a raw memory image.
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

#include "decode/internal.h"

static char *path_join(const char *dir, const char *path)
{
	size_t n = strlen(dir) + strlen(path) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s%s", dir, path[0] == '/' ? "" : "/", path);
	return s;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct qd_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* sized symbols first, so lookups prefer them */
	return (x->size < y->size) - (x->size > y->size);
}

/* Function symbols of one symbol table section; appends to @file. */
static int load_symtab(struct qd_file *file, Elf *elf, Elf_Scn *scn,
		       GElf_Shdr *sh, size_t *cap, size_t *strcap,
		       size_t *strlen_)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		size_t len;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		len = strlen(name) + 1;
		if (file->nr_syms == *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			struct qd_sym *ns = realloc(file->syms,
						    nc * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			file->syms = ns;
			*cap = nc;
		}
		if (*strlen_ + len > *strcap) {
			size_t nc = *strcap ? *strcap * 2 : 8192;
			char *nt;

			while (nc < *strlen_ + len)
				nc *= 2;
			nt = realloc(file->strtab, nc);
			if (!nt)
				return -ENOMEM;
			file->strtab = nt;
			*strcap = nc;
		}
		memcpy(file->strtab + *strlen_, name, len);
		/* store the offset now; pointers are fixed up at the end */
		file->syms[file->nr_syms].name = (const char *)(uintptr_t)*strlen_;
		file->syms[file->nr_syms].addr = sym.st_value;
		file->syms[file->nr_syms].size = sym.st_size;
		file->nr_syms++;
		*strlen_ += len;
	}
	return 0;
}

static void read_build_id(struct qd_file *file, Elf *elf, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data)
		return;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
			size_t n = nh.n_descsz < 20 ? nh.n_descsz : 20;

			memcpy(file->build_id, (char *)data->d_buf + desc_off,
			       n);
			file->build_id_size = (uint8_t)n;
			return;
		}
	}
}

static int load_elf(struct qd_file *file, int fd)
{
	size_t cap = 0, strcap = 0, used = 0, nph, i;
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
			err = load_symtab(file, elf, scn, &sh, &cap, &strcap,
					  &used);
			if (err)
				goto out;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
		} else if (sh.sh_type == SHT_NOTE && !file->build_id_size) {
			read_build_id(file, elf, scn);
		}
	}
	if (!have_symtab && dynsym) {
		GElf_Shdr sh;

		if (gelf_getshdr(dynsym, &sh)) {
			err = load_symtab(file, elf, dynsym, &sh, &cap,
					  &strcap, &used);
			if (err)
				goto out;
		}
	}
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

static void bid_hex(const uint8_t *bid, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", bid[i]);
	out[2 * n] = '\0';
}

/* Open the file and read what we need; 0 when opened, -errno otherwise. */
static int file_open(struct qd_file *file, const char *cand, bool raw)
{
	struct stat st;
	int fd, err;

	fd = open(cand, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
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
	file->found = strdup(cand);
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
		err = load_elf(file, fd);
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

static int file_locate(struct qd_files *files, struct qd_file *file,
		       const uint8_t *bid, size_t bid_size, bool raw)
{
	char *cand;
	int err;

	cand = files->sysroot ? path_join(files->sysroot, file->path)
			      : strdup(file->path);
	if (!cand)
		return -ENOMEM;
	err = file_open(file, cand, raw);
	free(cand);
	if (err == -ENOMEM)
		return err;
	if (!err && bid_matches(file, bid, bid_size))
		return 0;
	file->reason = err ? "not found" : "build-id mismatch";
	if (bid_size) {
		char hex[41], *dir, sub[64];
		const char *base = files->buildid_dir;
		char *home = NULL;

		if (!base) {
			const char *h = getenv("HOME");

			if (!h)
				goto missing;
			home = path_join(h, ".debug");
			if (!home)
				return -ENOMEM;
			base = home;
		}
		bid_hex(bid, bid_size, hex);
		snprintf(sub, sizeof(sub), ".build-id/%.2s/%s/elf", hex,
			 hex + 2);
		dir = path_join(base, sub);
		if (dir && access(dir, R_OK)) {
			/* older layout: .build-id/xx/yyyy is the file */
			sub[strlen(sub) - 4] = '\0';
			free(dir);
			dir = path_join(base, sub);
		}
		free(home);
		if (!dir)
			return -ENOMEM;
		err = file_open(file, dir, raw);
		free(dir);
		if (err == -ENOMEM)
			return err;
		if (!err && bid_matches(file, bid, bid_size))
			return 0;
	}
missing:
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
		if (!strcmp(file->path, path) && file->raw == raw)
			return file;
	file = calloc(1, sizeof(*file));
	if (!file)
		return NULL;
	file->path = strdup(path);
	file->raw = raw;
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
		free(f);
	}
	files->head = NULL;
}

const struct qd_sym *qd_file_sym(const struct qd_file *file, uint64_t addr)
{
	size_t lo = 0, hi = file->nr_syms;
	const struct qd_sym *s;

	/* last symbol with addr <= @addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (file->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &file->syms[lo - 1];
	/* back up over equal addresses to the sized one */
	while (s > file->syms && s[-1].addr == s->addr)
		s--;
	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}
