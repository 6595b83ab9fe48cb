# simblas.m4 -- SimBLAS's configure checks, in the manner of hwloc:
# each optional feature is detected, can be forced with --with/--without,
# and is reported in the summary at the end of configure.

# SimGrid: libsimblas uses its C API (sg_actor_self, smpi_execute_benched).
AC_DEFUN([SB_CHECK_SIMGRID], [
  AC_ARG_WITH([simgrid],
    [AS_HELP_STRING([--without-simgrid], [build without the SMPI sink (only the null, passthrough and trace modes work)])],
    [], [with_simgrid=check])
  sb_have_simgrid=no
  AS_IF([test "x$with_simgrid" != xno], [
    PKG_CHECK_MODULES([SIMGRID], [simgrid >= 3.30], [sb_have_simgrid=yes], [
      AS_IF([test "x$with_simgrid" = xyes],
        [AC_MSG_ERROR([SimGrid not found: install it with 'apt-get install libsimgrid-dev' or configure --without-simgrid])])])])
  sb_copy_cb=no
  AS_IF([test $sb_have_simgrid = yes], [
    AC_DEFINE([SB_HAVE_SIMGRID], [1], [SMPI sink compiled in])
    AC_PATH_PROG([SMPIRUN], [smpirun], [])
    AC_PATH_PROG([SMPICC], [smpicc], [])
    # SMPI's own copy callback (a C++ symbol of SimGrid 3.30-3.3x), called
    # for every payload that does not lie in the folded matrix
    AC_MSG_CHECKING([for SMPI's default payload copy (smpi_comm_copy_buffer_callback)])
    sb_save_LIBS=$LIBS sb_save_CFLAGS=$CFLAGS
    LIBS="$SIMGRID_LIBS $LIBS" CFLAGS="$SIMGRID_CFLAGS $CFLAGS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <stddef.h>
#include <smpi/smpi.h>
extern void sb_copy(void *, void *, size_t)
  __asm__("_Z30smpi_comm_copy_buffer_callbackPN7simgrid6kernel8activity8CommImplEPvm");
static void cb(smx_activity_t c, void *b, size_t n) { sb_copy(c, b, n); }]],
      [[smpi_comm_set_copy_data_callback(cb);]])], [sb_copy_cb=yes])
    LIBS=$sb_save_LIBS CFLAGS=$sb_save_CFLAGS
    AC_MSG_RESULT([$sb_copy_cb])
    AS_IF([test $sb_copy_cb = yes],
      [AC_DEFINE([SB_HAVE_SMPI_COPY_CALLBACK], [1], [SMPI's payload copy can be wrapped: none out of the folded matrix])])])
  AM_CONDITIONAL([HAVE_SIMGRID], [test $sb_have_simgrid = yes])
  AC_PATH_PROG([PYTHON3], [python3], [])
  AS_IF([test $sb_have_simgrid = yes && test "x$PYTHON3" = x],
    [AC_MSG_ERROR([python3 is needed to generate libsimblas_pmpi's MPI wrappers: apt-get install python3])])
  AM_CONDITIONAL([HAVE_SMPIRUN], [test "x$SMPIRUN" != x && test "x$SMPICC" != x])
])

# The real BLAS that the passthrough and trace modes dlopen at run time
# (never linked into libsimblas).
AC_DEFUN([SB_CHECK_BLAS_BACKEND], [
  AC_ARG_WITH([backend],
    [AS_HELP_STRING([--with-backend=LIB], [default real BLAS for SIMBLAS_MODE=passthrough (a path or soname; default: OpenBLAS if found)])],
    [sb_backend=$withval], [sb_backend=])
  AS_IF([test "x$sb_backend" = x], [
    AC_MSG_CHECKING([for OpenBLAS as the passthrough backend])
    for d in /usr/lib/${host_cpu}-linux-gnu/openblas-pthread /usr/lib/${host_cpu}-linux-gnu/openblas-openmp \
             /usr/lib/${host_cpu}-linux-gnu/openblas-serial /usr/lib64 /usr/lib /usr/local/lib; do
      AS_IF([test -e "$d/libopenblas.so.0"], [sb_backend="$d/libopenblas.so.0"; break])
    done
    AS_IF([test "x$sb_backend" = x], [sb_backend=libopenblas.so.0; AC_MSG_RESULT([not found (will try $sb_backend at run time)])],
          [AC_MSG_RESULT([$sb_backend])])])
  AC_DEFINE_UNQUOTED([SB_DEFAULT_BACKEND], ["$sb_backend"], [default backend for passthrough])
  AC_SUBST([SB_BACKEND], [$sb_backend])
  AC_SUBST([SB_BACKEND_DIR], [$(dirname "$sb_backend")])
  AM_CONDITIONAL([HAVE_BACKEND], [test -e "$sb_backend"])
])

# The calibrator: hwloc (cores, pinning), GSL (least squares), the real
# BLAS it measures (dlopened: never linked into libsimblas), gnuplot.
AC_DEFUN([SB_CHECK_CALIBRATOR], [
  AC_ARG_WITH([calibration-blas],
    [AS_HELP_STRING([--with-calibration-blas=LIB], [the real BLAS simblas-calibrate measures: a shared library path or soname (default: OpenBLAS, run single-threaded)])],
    [sb_calblas=$withval], [sb_calblas=$sb_backend])
  AC_DEFINE_UNQUOTED([SB_CALIBRATION_BLAS], ["$sb_calblas"], [BLAS measured by simblas-calibrate])
  PKG_CHECK_MODULES([HWLOC], [hwloc], [sb_have_hwloc=yes], [sb_have_hwloc=no])
  PKG_CHECK_MODULES([GSL], [gsl], [sb_have_gsl=yes], [sb_have_gsl=no])
  sb_calibrator=no
  AS_IF([test $sb_have_hwloc = yes && test $sb_have_gsl = yes], [sb_calibrator=yes],
        [AC_MSG_WARN([simblas-calibrate will not be built: install libhwloc-dev and libgsl-dev])])
  AM_CONDITIONAL([HAVE_CALIBRATOR], [test $sb_calibrator = yes])
  AC_PATH_PROG([GNUPLOT], [gnuplot], [])
  AC_DEFINE_UNQUOTED([SB_GNUPLOT], ["$GNUPLOT"], [gnuplot for the calibration report])
  AC_SUBST([SB_CALBLAS], [$sb_calblas])
])

# Open MPI, for simblas-calibrate --network's ping-pong (simblas-pingpong):
# mpicc's compile and link flags (mpicc --showme), used with plain $CC so
# that the program builds like the others (the sanitizer build included).
AC_DEFUN([SB_CHECK_MPI], [
  AC_ARG_VAR([MPICC], [Open MPI's mpicc, for simblas-calibrate --network (default: the PATH's)])
  AC_PATH_PROG([MPICC], [mpicc], [])
  sb_have_mpi=no
  AS_IF([test "x$MPICC" != x], [
    AC_MSG_CHECKING([for Open MPI's flags (mpicc --showme)])
    MPI_CFLAGS=`$MPICC --showme:compile 2>/dev/null` && MPI_LIBS=`$MPICC --showme:link 2>/dev/null` && sb_have_mpi=yes
    AC_MSG_RESULT([$sb_have_mpi])])
  AS_IF([test $sb_have_mpi = yes],
    [AC_DEFINE([SB_HAVE_PINGPONG], [1], [simblas-pingpong is built: simblas-calibrate --network works])])
  AC_SUBST([MPI_CFLAGS])
  AC_SUBST([MPI_LIBS])
  AM_CONDITIONAL([HAVE_MPICC], [test $sb_have_mpi = yes])
])

# A system cblas.h lets the compiler check every cblas_ definition.
AC_DEFUN([SB_CHECK_CBLAS_HEADER], [
  # netlib's header is the reference (OpenBLAS's differs on cblas_csrot,
  # cblas_zdrot and cblas_xerbla; test/cblas-proto covers both)
  sb_cblas_netlib=; sb_cblas_openblas=
  for h in /usr/include/${host_cpu}-linux-gnu/cblas-netlib.h; do AS_IF([test -f $h], [sb_cblas_netlib=$h]); done
  AS_IF([test "x$sb_cblas_netlib" != x],
    [AC_DEFINE_UNQUOTED([SB_SYSTEM_CBLAS_H], ["$sb_cblas_netlib"], [netlib cblas.h to check the definitions against])])
  for h in /usr/include/${host_cpu}-linux-gnu/cblas-openblas.h /usr/include/${host_cpu}-linux-gnu/openblas-pthread/cblas.h; do
    AS_IF([test -f $h && test "x$sb_cblas_openblas" = x], [sb_cblas_openblas=$h]); done
  AC_SUBST([CBLAS_NETLIB_H], [$sb_cblas_netlib])
  AC_SUBST([CBLAS_OPENBLAS_H], [$sb_cblas_openblas])
])

# What `make check` uses beyond a C compiler.
AC_DEFUN([SB_CHECK_TEST_TOOLS], [
  PKG_CHECK_MODULES([CMOCKA], [cmocka], [sb_have_cmocka=yes], [sb_have_cmocka=no])
  AM_CONDITIONAL([HAVE_CMOCKA], [test $sb_have_cmocka = yes])
  AC_PATH_PROG([GFORTRAN], [gfortran], [])
  AM_CONDITIONAL([HAVE_GFORTRAN], [test "x$GFORTRAN" != x])
  AC_PATH_PROG([NM], [nm], [nm])
])

# simblas-hpl's interpreter, chosen deliberately: Debian's /usr/bin/python3,
# which sees Debian's python3-* packages (python3-optuna), rather than the
# first python3 in PATH (pyenv's, a virtualenv's); PYTHON=/path/to/python3
# overrides.  The simblas_hpl package is installed in its $pythondir.
AC_DEFUN([SB_CHECK_PYTHON], [
  AC_ARG_VAR([PYTHON], [the Python 3 interpreter of simblas-hpl (default: /usr/bin/python3 when it exists)])
  sb_python_how="PYTHON=... to change"
  AS_IF([test "x$PYTHON" = x && test -x /usr/bin/python3], [PYTHON=/usr/bin/python3; sb_python_how="the system's; PYTHON=... to change"],
        [test "x$PYTHON" != x], [sb_python_how="PYTHON given"])
  AM_PATH_PYTHON([3.9], [], [AC_MSG_ERROR([simblas-hpl needs Python 3.9 or newer: apt-get install python3, or configure PYTHON=/path/to/python3])])
])

# Manual pages made from --help at build time (Debian's help2man).
AC_DEFUN([SB_CHECK_MANPAGES], [
  AC_PATH_PROG([HELP2MAN], [help2man], [])
  AM_CONDITIONAL([HAVE_HELP2MAN], [test "x$HELP2MAN" != x])
])

AC_DEFUN([SB_SUMMARY], [
  echo
  echo "SimBLAS $PACKAGE_VERSION configured:"
  echo "  SMPI sink (SimGrid)      : $sb_have_simgrid"
  echo "  smpirun tests            : ${SMPIRUN:-no (install libsimgrid-dev)}"
  echo "  no copy out of the matrix: $sb_copy_cb (SMPI's payload copy wrapped; no: SMPI copies messages sent from folded memory)"
  echo "  passthrough backend      : $sb_backend"
  echo "  simblas-calibrate        : $sb_calibrator (measures $sb_calblas)"
  echo "  calibration figures      : ${GNUPLOT:-no (install gnuplot; figures are skipped)}"
  echo "  cmocka unit tests        : $sb_have_cmocka"
  echo "  network ping-pong (MPI)  : ${sb_have_mpi} (simblas-calibrate --network; needs Open MPI's mpicc)"
  echo "  netlib test programs     : ${GFORTRAN:-no (install gfortran)}"
  echo "  simblas-hpl's Python     : $PYTHON $PYTHON_VERSION ($sb_python_how)"
  echo "  man pages (help2man)     : ${HELP2MAN:-no (install help2man)}"
  AS_IF([test $sb_have_fuzzer = yes], [echo "  model-file fuzzer        : $FUZZ_CC"],
        [echo "  model-file fuzzer        : no (install clang and libclang-rt-14-dev)"])
  sb_pkgdatadir=$(eval eval echo "${datadir}/simblas")
  echo "  model installed at       : $sb_pkgdatadir/default.model"
  echo
])

# The model-file fuzzer (test/fuzz): clang with libFuzzer and the address
# and undefined-behaviour sanitizers (Debian: clang, libclang-rt-14-dev).
AC_DEFUN([SB_CHECK_FUZZER], [
  AC_ARG_VAR([FUZZ_CC], [clang with libFuzzer, for the model-file fuzzer (default: clang or clang-14)])
  AC_CHECK_PROGS([FUZZ_CC], [clang clang-14], [])
  sb_have_fuzzer=no
  AS_IF([test "x$FUZZ_CC" != x], [
    AC_MSG_CHECKING([whether $FUZZ_CC links a libFuzzer target with -fsanitize=fuzzer,address,undefined])
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
      'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return n > 9 && *(d + 9) == 7; }' > conftest_fuzz.c
    AS_IF([$FUZZ_CC -fsanitize=fuzzer,address,undefined conftest_fuzz.c -o conftest_fuzz$EXEEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [sb_have_fuzzer=yes])
    rm -f conftest_fuzz.c conftest_fuzz$EXEEXT
    AC_MSG_RESULT([$sb_have_fuzzer])])
  AM_CONDITIONAL([HAVE_FUZZER], [test $sb_have_fuzzer = yes])
])
