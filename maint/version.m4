dnl The one place that holds rmaib's version.  configure.ac reads it with
dnl m4_include.
dnl RMAIB_ABI_VERSION is libtool's -version-info current:revision:age.
m4_define([RMAIB_VERSION],[0.1.0])
m4_define([RMAIB_ABI_VERSION],[0:0:0])
