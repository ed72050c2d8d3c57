/* SPDX-License-Identifier: MIT */
/*
 * The part of QEMU's TCG plugin interface qpt's plugin uses, declared from
 * QEMU's documentation of it (docs/devel/tcg-plugins.rst and the API
 * reference built from include/qemu/qemu-plugin.h): Debian ships no
 * header for it.  The interface is a C ABI that QEMU resolves in the
 * plugin at load: the plugin exports qemu_plugin_version (the API version
 * it was written for) and qemu_plugin_install; QEMU refuses a plugin whose
 * version is outside the range it supports and passes that range to
 * qemu_plugin_install.  Version 1 is what QEMU 4.2 to 8.1 implement
 * (Debian 12's qemu-user is 7.2); every function below is of version 1.
 */
#ifndef QPT_QEMU_API_H
#define QPT_QEMU_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API version this plugin is written for. */
#define QPT_QEMU_PLUGIN_API 1

#define QPT_QEMU_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

/* What QEMU tells the plugin at install (valid during the call only). */
typedef struct qemu_info_t {
	const char *target_name; /* "x86_64" */
	struct {
		int min, cur; /* the API versions QEMU supports */
	} version;
	bool system_emulation; /* false: user mode (qemu-x86_64) */
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;	 /* a block being translated */
struct qemu_plugin_insn; /* an instruction of that block */

/* Whether a callback reads or writes the guest's registers. */
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

typedef uint32_t qemu_plugin_meminfo_t;

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *udata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id,
					     unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *udata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index,
					  qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *udata);
/* A system call about to run: its number and arguments. */
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(
    qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1,
    uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
    uint64_t a7, uint64_t a8);
/* A system call returned @ret (in each process, after a fork). */
typedef void (*qemu_plugin_vcpu_syscall_ret_cb_t)(qemu_plugin_id_t id,
						  unsigned int vcpu_idx,
						  int64_t num, int64_t ret);

/* The plugin's entry points, looked up by QEMU. */
QPT_QEMU_EXPORT extern int qemu_plugin_version;
/* Called once at load with the plugin's "-plugin FILE,k=v,..." arguments
 * (@argv lives as long as the plugin); non-zero refuses the load. */
QPT_QEMU_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					const qemu_info_t *info, int argc,
					char **argv);

/* A vCPU (in user mode: a guest thread) is created, or it exits. */
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id,
				       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id,
				       qemu_plugin_vcpu_simple_cb_t cb);
/* Every block translated; its instructions can be inspected and
 * instrumented during the call. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
/* Each time the translated block @tb starts executing. */
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
/* Each time @insn is about to execute. */
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
/* After each memory access of @insn (accesses that fault are not seen). */
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *udata);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id,
					  qemu_plugin_vcpu_syscall_cb_t cb);
void qemu_plugin_register_vcpu_syscall_ret_cb(
    qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_ret_cb_t cb);
/* When the guest program exits (not when it dies of a signal). */
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *udata);
/* Every translated block was thrown away (a block's user data may go). */
void qemu_plugin_register_flush_cb(qemu_plugin_id_t id,
				   void (*cb)(qemu_plugin_id_t id));

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *
qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
/* The instruction's bytes as translated (valid during the callback). */
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* User mode: where the guest address is in QEMU's own address space. */
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);

#endif /* QPT_QEMU_API_H */
