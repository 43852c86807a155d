#!/bin/sh
# A testee that answers hello and then never answers again (and leaves a child behind that
# would outlive a runner that only killed this shell). Argument: a marker for the test's process
# search.
read line
echo '{"protocol":1,"implementation":"silent"}'
sleep "${1:-1000}" &
wait
