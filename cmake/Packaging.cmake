# cpack -G DEB: a Debian package of what cmake --install installs (the
# command, libqpt, its headers and package files, the man pages, the bash
# completion), installed under /usr, its dependencies found by
# dpkg-shlibdeps from the libraries the binaries link.
set(CPACK_PACKAGE_NAME qpt)
set(CPACK_PACKAGE_VENDOR qpt)
set(CPACK_PACKAGE_CONTACT "qpt maintainers <qpt@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "capture and decode Intel PT traces through the perf AUX area")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libqpt is the package's own: dpkg-shlibdeps finds it there
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
  ${PROJECT_BINARY_DIR})
# libdebuginfod1 is loaded at its first use (decode/debuginfod.c), so
# dpkg-shlibdeps does not see it
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "linux-perf, libdebuginfod1")
include(CPack)
