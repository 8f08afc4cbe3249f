# The H200's ex2.approx tables (docs/Emulator.md, "ex2.approx as the H200")
# and sm_90's lg2.approx mantissa table ("lg2.approx as measured"): unpacked
# at configure time into this build directory and embedded by
# Ex2Tables.cpp. Included by lib/Emulator/CMakeLists.txt and by the
# standalone runtime build, scripts/device/CMakeLists.txt.
set(NVFP4_EX2_ARCHIVE "${CMAKE_CURRENT_LIST_DIR}/data/ex2_h200.tar.xz")
set(NVFP4_EX2_DIR "${CMAKE_CURRENT_BINARY_DIR}/ex2")
file(ARCHIVE_EXTRACT INPUT "${NVFP4_EX2_ARCHIVE}" DESTINATION "${NVFP4_EX2_DIR}")
set(NVFP4_LG2_ARCHIVE "${CMAKE_CURRENT_LIST_DIR}/data/lg2_sm90.tar.xz")
file(ARCHIVE_EXTRACT INPUT "${NVFP4_LG2_ARCHIVE}" DESTINATION "${NVFP4_EX2_DIR}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  "${NVFP4_EX2_ARCHIVE}" "${NVFP4_LG2_ARCHIVE}")
set_source_files_properties("${CMAKE_CURRENT_LIST_DIR}/Ex2Tables.cpp"
  PROPERTIES
  COMPILE_DEFINITIONS "NVFP4_EX2_DIR=\"${NVFP4_EX2_DIR}\""
  OBJECT_DEPENDS "${NVFP4_EX2_ARCHIVE};${NVFP4_LG2_ARCHIVE}")
# (On the archive, not the unpacked files: they keep the archive's
# timestamps, so a new archive would not make them newer than the object.)
