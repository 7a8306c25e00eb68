package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/ddl"
)

// Flink groups functions in modules; streamsql has one, core (its
// built-in functions), always loaded. LOAD MODULE core is an error, as in
// Flink (it is loaded); USE MODULES orders and enables loaded modules, so
// USE MODULES core keeps it in use; LOAD MODULE of another module (hive)
// and UNLOAD MODULE core (which would take the built-in functions away)
// are refused.

// coreModule is the name of streamsql's one module.
const coreModule = "core"

// module plans LOAD MODULE, UNLOAD MODULE and USE MODULES (whose one
// possible list, core, changes nothing).
func (p *planner) module(s *ddl.Module) {
	name := s.Names[0]
	switch s.Kind {
	case ddl.LoadModule:
		if strings.EqualFold(name.Name, coreModule) {
			p.addErr(p.f.errorAt(name.Pos, ErrDuplicateName, nil, "the module 'core' is loaded already (it always is: it holds the built-in functions)"))
			return
		}
		p.addErr(p.f.errorAt(s.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf("LOAD MODULE %s is not supported: streamsql has no module but core (its built-in functions)", name.Name)))
	case ddl.UnloadModule:
		if !strings.EqualFold(name.Name, coreModule) {
			p.addErr(p.f.errorAt(name.Pos, ErrUnknownName, nil, fmt.Sprintf("no module named '%s' is loaded; the one loaded is core", name.Name)))
			return
		}
		p.addErr(p.f.unsupported(s.Pos, "UNLOAD MODULE core (it holds the built-in functions)"))
	case ddl.UseModules:
		seen := false
		for _, n := range s.Names {
			if !strings.EqualFold(n.Name, coreModule) {
				p.addErr(p.f.errorAt(n.Pos, ErrUnknownName, nil, fmt.Sprintf("no module named '%s' is loaded; the one loaded is core", n.Name)))
				return
			}
			if seen {
				p.addErr(p.f.errorAt(n.Pos, ErrDuplicateName, nil, "module 'core' is listed twice"))
				return
			}
			seen = true
		}
	}
}
