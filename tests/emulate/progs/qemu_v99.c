// SPDX-License-Identifier: MIT
/* A QEMU plugin of an API version no QEMU has (99): qpt record
 * --emulate=qemu must say in one line that QEMU refused it. */
__attribute__((visibility("default"))) int qemu_plugin_version = 99;

__attribute__((visibility("default"))) int
qemu_plugin_install(unsigned long id, const void *info, int argc, char **argv);

int qemu_plugin_install(unsigned long id, const void *info, int argc,
			char **argv)
{
	return 0;
}
