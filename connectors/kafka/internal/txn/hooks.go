package txn

// The methods of this file let the sink's broker tests look inside the
// machinery; nothing else calls them.

// Crash closes every client of w without ending its transactions, as a
// killed process would.
func (w *Writer) Crash() {
	for _, sl := range w.slots {
		w.sink.unregister(sl)
		sl.mu.Lock()
		if sl.client != nil {
			sl.client.Close()
			sl.client = nil
		}
		sl.state = slotClosed
		sl.mu.Unlock()
	}
	w.slots, w.cur = nil, nil
	w.publish()
}

// OpenTransaction returns the transactional id and the client of w's open
// transaction ("" and nil when none is open).
func (w *Writer) OpenTransaction() (string, Client) {
	if w.cur == nil {
		return "", nil
	}
	return w.cur.id, w.cur.client
}

// Slots returns how many transactional ids w holds.
func (w *Writer) Slots() int { return len(w.slots) }

// SlotState reports the state of the slot of transactional id id in this
// process ("idle", "open", "precommitted", "committed" or "closed") and
// whether it has a client; ok is false when no live slot has that id.
func (s *Sink) SlotState(id string) (state string, hasClient, ok bool) {
	sl := s.lookup(id)
	if sl == nil {
		return "", false, false
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.state.String(), sl.client != nil, true
}

func (st slotState) String() string {
	switch st {
	case slotIdle:
		return "idle"
	case slotOpen:
		return "open"
	case slotPrecommitted:
		return "precommitted"
	case slotCommitted:
		return "committed"
	case slotClosed:
		return "closed"
	}
	return "unknown"
}

// RawClient returns the committer's client for raw requests of
// transaction version tv.
func (cm *Committer) RawClient(tv int16) Client { return cm.rawClient(tv) }
