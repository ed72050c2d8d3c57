# Find libipt (Intel's PT decoder library).  Debian's 2.0.5 ships no
# pkg-config file.  Defines Libipt::Libipt and LIBIPT_VERSION.
find_path(LIBIPT_INCLUDE_DIR intel-pt.h)
find_library(LIBIPT_LIBRARY NAMES ipt)
if(LIBIPT_INCLUDE_DIR AND EXISTS "${LIBIPT_INCLUDE_DIR}/intel-pt.h")
  file(STRINGS "${LIBIPT_INCLUDE_DIR}/intel-pt.h" _maj REGEX "^#define LIBIPT_VERSION_MAJOR")
  file(STRINGS "${LIBIPT_INCLUDE_DIR}/intel-pt.h" _min REGEX "^#define LIBIPT_VERSION_MINOR")
  string(REGEX REPLACE ".*MAJOR[ \t]+([0-9]+).*" "\\1" _maj "${_maj}")
  string(REGEX REPLACE ".*MINOR[ \t]+([0-9]+).*" "\\1" _min "${_min}")
  set(LIBIPT_VERSION "${_maj}.${_min}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libipt
  REQUIRED_VARS LIBIPT_LIBRARY LIBIPT_INCLUDE_DIR VERSION_VAR LIBIPT_VERSION)
if(Libipt_FOUND AND NOT TARGET Libipt::Libipt)
  add_library(Libipt::Libipt UNKNOWN IMPORTED)
  set_target_properties(Libipt::Libipt PROPERTIES
    IMPORTED_LOCATION "${LIBIPT_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBIPT_INCLUDE_DIR}")
endif()
mark_as_advanced(LIBIPT_INCLUDE_DIR LIBIPT_LIBRARY)
