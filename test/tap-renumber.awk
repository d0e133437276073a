# The TAP points of one test/run-test run, numbered on from base and named after the
# program t (awk -v base=N -v t=NAME); the plan line goes, other lines stay, and the
# count of points goes to standard error.  test/scale/run.sh and
# test/multihost/netns_rma.sh put many runs in one TAP stream with it.
/^(not ok|ok) [0-9]+ - / {
    st = $1 == "not" ? "not ok" : "ok"
    rest = $0; sub(/^(not ok|ok) [0-9]+ - /, "", rest)
    print st " " (base + ++n) " - " t " " rest
    next
}
/^1\.\.[0-9]+/ { next }
{ print }
END { print n + 0 > "/dev/stderr" }
