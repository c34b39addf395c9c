// Copyright goweave authors. Added to package runtime by the goweave overlay.

//go:build !race

package runtime

func goweaveRaceEnter(pc uintptr) {}

func goweaveRaceExit() {}
