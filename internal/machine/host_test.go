package machine

import "testing"

func TestCPUModel(t *testing.T) {
	in := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t: fpu\n"
	if got := cpuModel(in); got != "AMD EPYC 7B13" {
		t.Errorf("cpuModel = %q; want AMD EPYC 7B13", got)
	}
	if got := cpuModel("processor : 0\n"); got != "" {
		t.Errorf("cpuModel without a model name = %q; want empty", got)
	}
	if Kernel() == "" {
		t.Error("Kernel() is empty on Linux")
	}
}
