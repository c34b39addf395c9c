package runtimepatch

// TimeLimitSignal is the signal EnvTimeLimit names: Linux's SIGRTMAX-2, which
// Go programs ignore unless they ask for it with os/signal.
const TimeLimitSignal = 62
