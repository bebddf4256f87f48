# Runs a media tool so that it does not outlive the service (see watchdog.ts). Arguments: the
# service's pid, then the tool's command line. Plain POSIX sh: the same under Node, Bun and Deno.
service=$1; shift
# A background job would read /dev/null; the tool gets the shell's stdin explicitly.
exec 4<&0
"$@" <&4 4<&- &
tool=$!
exec 4<&-
# The watcher is a shell of its own, whose command line names the service, not the tool's
# arguments. It kills the group once the service is gone; a SIGTERM to the group does not end
# it: it then kills the group a second later, so a tool that ignores SIGTERM is gone too.
watcher='stop=; trap "stop=1" TERM
while kill -0 "$1" 2>/dev/null; do [ -n "$stop" ] && { sleep 1; break; }; sleep 1; done
kill -s KILL 0'
/bin/sh -c "$watcher" media-api-watcher "$service" </dev/null >/dev/null 2>&1 &
watcher=$!
wait "$tool"; code=$?
kill -s KILL "$watcher" 2>/dev/null
# A death by a signal is passed on as that signal, any other exit code as it is.
[ "$code" -gt 128 ] && kill -$((code - 128)) $$
exit "$code"
