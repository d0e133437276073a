[#] start of __file__
dnl ch4:rmaib: MPICH's UCX netmod for everything but one-sided communication,
dnl which is rmaib's (its netmod library, librmaib-nm, from --with-rmaib-nm=LIBDIR).
dnl MPICH_SUBCFG_AFTER=src/mpid/ch4
dnl MPICH_SUBCFG_BEFORE=src/mpid/ch4/netmod/ucx

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
    AM_COND_IF([BUILD_CH4],[
        for net in $ch4_netmods ; do
            if test $net = "rmaib" ; then
                build_ch4_netmod_rmaib=yes
                dnl UCX's subconfigure (after this one) then configures and builds it
                build_ch4_netmod_ucx=yes
                AC_DEFINE(HAVE_CH4_NETMOD_UCX,1,[UCX netmod is built])
                AC_DEFINE(HAVE_CH4_NETMOD_RMAIB,1,[rmaib netmod is built])
                if test "$build_ch4_locality_info" != "yes" ; then
                    AC_DEFINE(MPIDI_BUILD_CH4_LOCALITY_INFO, 1, [CH4 should build locality info])
                    build_ch4_locality_info="yes"
                fi
                dnl The types are UCX's (rmaib_pre.h) and so is the code that reads
                dnl them through netmod.ucx: name the union members after UCX.
                for v in amrequest request comm dt op win addr part ; do
                    eval "ch4_netmod_${v}_decl=\`echo \"\$ch4_netmod_${v}_decl\" | sed 's/_t rmaib;/_t ucx;/'\`"
                done
            fi
        done
    ])
    AM_CONDITIONAL([BUILD_CH4_NETMOD_RMAIB],[test "X$build_ch4_netmod_rmaib" = "Xyes"])
])dnl

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_COND_IF([BUILD_CH4_NETMOD_RMAIB],[
    AC_MSG_NOTICE([RUNNING CONFIGURE FOR ch4:rmaib])
    AC_ARG_WITH([rmaib-nm],
        AS_HELP_STRING([--with-rmaib-nm=LIBDIR],[directory of rmaib's netmod library, librmaib-nm.so]),
        [rmaib_nm_libdir=$withval], [rmaib_nm_libdir=])
    if test -z "$rmaib_nm_libdir" -o ! -f "$rmaib_nm_libdir/librmaib-nm.so" ; then
        AC_MSG_ERROR([ch4:rmaib needs --with-rmaib-nm=LIBDIR, the directory of librmaib-nm.so])
    fi
    AC_SUBST([rmaib_nm_libdir])
])dnl
])dnl

[#] end of __file__
