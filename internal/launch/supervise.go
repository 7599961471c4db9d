package launch

// Supervise runs this process as an agent's supervisor when it was started
// as one (on Linux, launch re-runs the program's own executable for it),
// and then returns the exit code with ok true: main exits with it. For
// every other start it returns ok false at once and main goes on.
//
// Call it first in main, and in TestMain of a test binary whose tests
// start agents: Start re-runs the executable as the supervisor only in a
// program that called it, since another program, run again, would do
// whatever its main does. Without the call agents still start, in a
// session of their own, without the supervisor's containment and limits.
func Supervise() (code int, ok bool) { return supervise() }
