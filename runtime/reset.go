package runtime

import (
	"slices"
)

// resetSource reports whether source sr starts afresh in this run
// (JobSpec.ResetSources): it is named there (by its table, its id
// "<pipeline>/<table>", or "*"), and the checkpoint the run restores was
// taken before this process started — a checkpoint of this process's own
// runs already holds the fresh positions, and dropping them would read the
// input again. The first time it applies, it says so in the log.
func (a *attempt) resetSource(sr *sourceRT) bool {
	j := a.j
	if a.restored == nil || len(j.spec.ResetSources) == 0 {
		return false
	}
	if _, own := j.ownRuns.Load(a.restored.Run); own {
		return false
	}
	if !slices.Contains(j.spec.ResetSources, "*") && !slices.Contains(j.spec.ResetSources, sr.id) &&
		!slices.Contains(j.spec.ResetSources, sr.table) {
		return false
	}
	if _, had := a.restored.Sources[sr.id]; had {
		j.log.Warn("starting a source afresh: its positions in the restored checkpoint are dropped (reset sources); it reads from its start options",
			"source", sr.id, "checkpoint", a.restored.ID)
	}
	return true
}
