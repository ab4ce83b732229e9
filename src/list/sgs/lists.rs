//! The list modes: a guide's serial pass and a guarded pass's starts in
//! list order, joint groups of the next list nodes (models/list.md,
//! "Guides").

use super::*;

impl<'m, 'g, 'a> Pass<'m, 'g, 'a> {
    /// Guarded mode: the next nodes of the guide's list start whenever they fit
    /// (no guard needed: that is the serial completion's own next step). When
    /// nothing runs, the serial completion guarantees that the next node, or a
    /// joint group of the next ones, fits: this is why the mode cannot deadlock.
    pub(super) fn in_order_phase(&mut self, t: u128) -> bool {
        let mut progress = false;
        loop {
            let guard = self.guard.as_mut().expect("guarded pass");
            let q = guard.next_unstarted();
            if q == guard.len() {
                return progress;
            }
            let v = guard.node_at(q);
            if self.state[v as usize] != READY {
                return progress;
            }
            if self.try_set(&[v], t) || self.try_groups_for(v, t) {
                progress = true;
                continue;
            }
            if !self.running.is_empty() || !self.try_list_group(t) {
                return progress;
            }
            progress = true;
        }
    }

    /// Joint starts of the next unstarted nodes of the list (serial and guarded
    /// passes): the smallest prefix, up to `MAX_GROUP` nodes, that fits.
    pub(super) fn try_list_group(&mut self, t: u128) -> bool {
        let mut group: Vec<u32> = Vec::new();
        let mut q = self.list_next();
        let len = self.list_len();
        while q < len && group.len() < MAX_GROUP {
            let w = self.list_node(q);
            if self.state[w as usize] != READY {
                return false;
            }
            group.push(w);
            if group.len() > 1 && self.try_set(&group, t) {
                return true;
            }
            q = self.list_after(q);
        }
        false
    }

    /// The first unstarted list position (list modes).
    pub(super) fn list_next(&mut self) -> usize {
        if let Some(gd) = &mut self.guard {
            return gd.next_unstarted();
        }
        let s = self.serial.as_mut().expect("list modes only");
        while s.cursor < s.list.len() && self.state[s.list[s.cursor] as usize] >= RUNNING {
            s.cursor += 1;
        }
        s.cursor
    }

    pub(super) fn list_len(&self) -> usize {
        match (&self.guard, &self.serial) {
            (Some(gd), _) => gd.len(),
            (_, Some(s)) => s.list.len(),
            _ => 0,
        }
    }

    pub(super) fn list_node(&self, q: usize) -> u32 {
        match (&self.guard, &self.serial) {
            (Some(gd), _) => gd.node_at(q),
            (_, Some(s)) => s.list[q],
            _ => unreachable!("list modes only"),
        }
    }

    /// The next unstarted list position after `q`. (The serial pass starts
    /// out of list order only in joint groups, so its scan stays short.)
    pub(super) fn list_after(&mut self, q: usize) -> usize {
        if let Some(gd) = &mut self.guard {
            return gd.unstarted_from(q + 1);
        }
        let s = self.serial.as_ref().expect("list modes only");
        let mut r = q + 1;
        while r < s.list.len() && self.state[s.list[r] as usize] >= RUNNING {
            r += 1;
        }
        r
    }

    /// The serial pass of a guide: when nothing runs, the next node of the list
    /// starts, or else the smallest joint group of the next ones, or else a
    /// joint group with the other pending successors of its holders.
    pub(super) fn serial_phase(&mut self, t: u128) {
        if !self.running.is_empty() {
            return;
        }
        let q = self.list_next();
        if q == self.list_len() {
            return;
        }
        let v = self.list_node(q);
        debug_assert_eq!(self.state[v as usize], READY, "the list is topological");
        if self.try_set(&[v], t) || self.try_list_group(t) || self.try_groups_for(v, t) {
            return;
        }
        // Stuck: name the op and the memory type the node alone lacks.
        self.short_of = None;
        self.fits(&[v]);
        self.blocked_at = self.short_of.map(|m| (self.md.g.node_op[v as usize], m));
    }
}
