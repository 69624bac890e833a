package reveal

import (
	"os/exec"
	"strings"
	"syscall"
)

// prepare passes explorer's "/select,<path>" unquoted: Go would quote an
// argument holding a space, and explorer does not parse "/select,..." in
// quotes. The path alone is quoted.
func prepare(cmd *exec.Cmd) {
	if len(cmd.Args) == 2 && strings.HasPrefix(cmd.Args[1], "/select,") {
		cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `explorer /select,"` + strings.TrimPrefix(cmd.Args[1], "/select,") + `"`}
	}
}
