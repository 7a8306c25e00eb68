package runtime_test

func childMain() bool { return false }
