#!/bin/sh
# Generate configure, Makefile.in and the auxiliary scripts (build-aux/, including
# automake's tap-driver.sh).  Needs autoconf, automake, libtool (maint/install-deps).
set -e
cd "$(dirname "$0")"

for tool in autoreconf autoconf automake aclocal libtoolize; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "autogen.sh: $tool not found; run maint/install-deps first" >&2
        exit 1
    fi
done

mkdir -p m4 build-aux
echo "autogen.sh: running autoreconf"
autoreconf --force --install --warnings=all,no-portability

if [ ! -f build-aux/tap-driver.sh ]; then
    echo "autogen.sh: automake did not install build-aux/tap-driver.sh" >&2
    exit 1
fi
echo "autogen.sh: done; now run ./configure"
