/*
 * The libfabric loader built as against libfabric 2.x's headers (test/unit/fi2):
 * 2.x kept the soname libfabric.so.1, so the loader must open that, and resolve
 * its functions from this machine's libfabric, whatever the headers' major version.
 */
#include <stdio.h>
#include <string.h>
#include "unit_tap.h"
#include "transport/ofi/loader.h"

int main(void)
{
    char why[512] = "";
    tap(FI_MAJOR_VERSION == 2, "built with headers of major version 2 (%d)", FI_MAJOR_VERSION);
    int rc = rmaib_fi_load(NULL, why, sizeof why);
    tap(rc == 0, "the default library opens and resolves (%s)", rc ? why : "ok");
    tap(rc != 0 || (rmaib_fi.getinfo && rmaib_fi.strerror
                    && strcmp(rmaib_fi.strerror(0), "") != 0),
        "its functions are callable: fi_strerror(0) = \"%s\"",
        rc ? "" : rmaib_fi.strerror(0));
    printf("1..%d\n", tap_n);
    return tap_bad ? 1 : 0;
}
