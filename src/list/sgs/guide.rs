//! Guides: deadlock-free parallel passes under tight memory.
//!
//! A *guide* is a topological list of the nodes whose serial schedule (one node,
//! or one joint group, at a time, in list order) is legal. Its serial pass
//! records, for every list position k and memory type m, `base[k][m]`: the
//! memory held just after the start of step k.
//!
//! A guarded pass keeps this invariant: *from the current state, the serial
//! completion (wait for the running nodes, then the unstarted nodes in list
//! order) is legal.* Starting the next unstarted nodes of the list keeps it by
//! definition. Starting a node u at list position p out of order, while q is
//! the first unstarted position, adds u's hold to the serial completion's
//! steps q..p (before p the serial schedule did not hold it yet; from p on it
//! did). So the pass keeps `extra[k][m]`, the holds of nodes started ahead of
//! their turn, and admits u only if for every type m it acquires,
//! `base[k][m] + extra[k][m] + a(u, m) <= size(m)` for all k in [q, p); then
//! adds `a(u, m)` to `extra` on [q, p).
//!
//! This over-approximates the serial completion's memory: an early start can
//! also release holders earlier (ignored), a node that ended and released
//! stays counted, and the profile answers per block of positions
//! (`profile.rs`). Every error is on the safe side. So when nothing runs, the
//! next unstarted node (or the joint group the serial pass used there) fits,
//! and a guarded pass never deadlocks.
//!
//! Why the serial schedule of a list is the right yardstick: for a fixed order
//! of starts, running one node at a time holds the least memory at every start
//! (each holder still counted in the serial schedule has started and has a
//! same-type successor that has not, so it holds in any schedule with that
//! order). In particular the start order of any legal schedule, with equal
//! starts as joint groups, is serially legal; the serial pass forms joint
//! groups from nodes ready together, so such an order is a guide unless a
//! node of zero duration starts at the same instant as one of its
//! successors (models/list.md, "Lemma (serial is least").

use crate::instance::TypeIdx;
use crate::schedule::Schedule;
use crate::stop::Deadline;

use super::profile::Profile;
use super::{Model, Pass, Stop};

/// `Guard::opm_last` of an inter-op hold whose successor ops have no
/// source of its type (`u32::MAX`: not computed yet).
const NO_SOURCE: u32 = u32::MAX - 1;

/// A list whose serial schedule is legal, with its memory profile.
#[derive(Clone)]
pub struct Guide {
    /// The serial pass's own start order (joint groups are consecutive).
    list: Vec<u32>,
    pos: Vec<u32>,
    /// Bit k set: position k starts a joint group of the serial pass (every
    /// position alone is a group of one). A group's positions all record
    /// the memory held just after the whole group started.
    group_first: Vec<u64>,
    /// Per memory type: the serial profile (binding types only).
    base: Vec<Option<Profile>>,
    /// Makespan of the serial schedule.
    pub serial_makespan: u128,
}

impl Guide {
    /// Runs `list` serially. On success, the guide and its serial schedule
    /// (legal: it is a pass of the scheme); otherwise where the serial schedule
    /// ran out of memory (`Stop::Deadlock` with `blocked` set).
    pub fn new(md: &Model, list: &[u32], deadline: &Deadline) -> Result<(Guide, Schedule), Stop> {
        let g = md.g;
        let n = g.n_nodes();
        debug_assert_eq!(list.len(), n);
        let rec = Recorder {
            list,
            cursor: 0,
            order: Vec::with_capacity(n),
            group_first: vec![0; n.div_ceil(64)],
            base: (0..md.n_mem)
                .map(|m| md.binding[m].then(|| Profile::new(n)))
                .collect(),
        };
        let mut p = Pass::new(md, &[], None, Some(rec));
        let s = p.execute(deadline)?;
        let rec = p.serial.take().expect("serial pass");
        drop(p);
        let mut base = rec.base;
        for pr in base.iter_mut().flatten() {
            pr.seal();
        }
        let mut pos = vec![0u32; n];
        for (k, &v) in rec.order.iter().enumerate() {
            pos[v as usize] = k as u32;
        }
        let serial_makespan = s.makespan(g);
        Ok((
            Guide {
                list: rec.order,
                pos,
                group_first: rec.group_first,
                base,
                serial_makespan,
            },
            s,
        ))
    }

    /// The first position of the joint group that position `k` belongs to
    /// (groups have at most `MAX_GROUP` members).
    fn group_start(&self, k: usize) -> usize {
        let mut k = k;
        while self.group_first[k / 64] & (1 << (k % 64)) == 0 {
            k -= 1;
        }
        k
    }

    /// The list, in the serial pass's start order.
    pub fn list(&self) -> &[u32] {
        &self.list
    }

    /// Bytes held, for the memory figures in the logs.
    pub fn bytes(&self) -> usize {
        8 * self.list.len()
            + 8 * self.group_first.len()
            + self.base.iter().flatten().map(|p| p.bytes()).sum::<usize>()
    }

    /// A fresh guard for one pass.
    pub(super) fn guard(&self) -> Guard<'_> {
        let n = self.list.len();
        Guard {
            guide: self,
            profile: self.base.clone(),
            skip: (0..=n as u32).collect(),
            next: 0,
            members: Vec::new(),
            acq: Vec::new(),
            plan: (0, 0),
            early_from: vec![u32::MAX; n],
            opm_last: Vec::new(),
        }
    }
}

/// The serial pass's bookkeeping: the input list, where it stands, the actual
/// start order and the profile.
pub(super) struct Recorder<'m> {
    pub list: &'m [u32],
    /// No unstarted node of `list` before this position.
    pub cursor: usize,
    pub order: Vec<u32>,
    /// See `Guide::group_first`.
    pub group_first: Vec<u64>,
    pub base: Vec<Option<Profile>>,
}

impl Recorder<'_> {
    /// After a joint start of `set` (already in `order`'s tail): the memory
    /// held now is the profile of these positions.
    pub(super) fn record(&mut self, set: &[u32], usage: &[u128]) {
        let first = self.order.len();
        self.group_first[first / 64] |= 1 << (first % 64);
        self.order.extend_from_slice(set);
        let end = self.order.len();
        for (m, pr) in self.base.iter_mut().enumerate() {
            if let Some(pr) = pr {
                let u = u64::try_from(usage[m]).unwrap_or(u64::MAX);
                for k in end - set.len()..end {
                    pr.raise(k, u);
                }
            }
        }
    }
}

/// The per-pass state of a guarded pass.
pub(super) struct Guard<'m> {
    guide: &'m Guide,
    /// `base + extra`, per binding memory type.
    profile: Vec<Option<Profile>>,
    /// Union-find over positions: `skip[k] == k` when position k is unstarted,
    /// else a later position with no unstarted one in between.
    skip: Vec<u32>,
    /// No unstarted position before this one.
    next: usize,
    members: Vec<(u32, u32)>,
    acq: Vec<u64>,
    /// Per node started ahead of its turn: the first unstarted position then
    /// (where its extra hold starts); `u32::MAX` for the others.
    early_from: Vec<u32>,
    /// Per inter-op hold entry of the model: the last turn of the sources it
    /// waits for (computed when first needed; `NO_SOURCE` where none).
    opm_last: Vec<u32>,
    /// From the last `check`: the first unstarted position after the in-order
    /// members, and how many members are in order.
    plan: (usize, usize),
}

impl Guard<'_> {
    pub(super) fn len(&self) -> usize {
        self.guide.list.len()
    }

    pub(super) fn node_at(&self, q: usize) -> u32 {
        self.guide.list[q]
    }

    /// The first unstarted position at or after `k` (`len` when none).
    pub(super) fn unstarted_from(&mut self, k: usize) -> usize {
        let mut r = k as u32;
        while self.skip[r as usize] != r {
            r = self.skip[r as usize];
        }
        // Path compression.
        let mut x = k as u32;
        while self.skip[x as usize] != r {
            let nx = self.skip[x as usize];
            self.skip[x as usize] = r;
            x = nx;
        }
        r as usize
    }

    /// The first unstarted position.
    pub(super) fn next_unstarted(&mut self) -> usize {
        self.next = self.unstarted_from(self.next);
        self.next
    }

    pub(super) fn started(&mut self, v: u32) {
        let p = self.guide.pos[v as usize] as usize;
        self.skip[p] = p as u32 + 1;
    }

    /// Whether starting all of `set` now keeps the serial completion legal.
    /// `Err(k)`: not before the first unstarted position passes k. The plan is
    /// kept for `commit`.
    pub(super) fn check(&mut self, md: &Model, set: &[u32]) -> Result<(), usize> {
        self.members.clear();
        self.members
            .extend(set.iter().map(|&v| (self.guide.pos[v as usize], v)));
        self.members.sort_unstable();
        // The members that extend the started prefix are in order.
        let mut q = self.next_unstarted();
        let mut i = 0;
        while i < self.members.len() && self.members[i].0 as usize == q {
            i += 1;
            q = self.unstarted_from(q + 1);
        }
        self.plan = (q, i);
        if i == self.members.len() {
            return Ok(());
        }
        let g = md.g;
        let n_mem = md.n_mem;
        // Per type: total acquisition of the out-of-order members, and the
        // farthest position among those that acquire it.
        self.acq.clear();
        self.acq.resize(2 * n_mem, 0);
        for &(p, u) in &self.members[i..] {
            for (k, e) in g.mems(u).iter().enumerate() {
                let m = e.mem as usize;
                if md.binding[m] && md.holds_at_start(u, k) {
                    self.acq[m] = self.acq[m].saturating_add(e.amount);
                    self.acq[n_mem + m] = self.acq[n_mem + m].max(u64::from(p));
                }
            }
        }
        let mut wait: Option<usize> = None;
        for m in 0..n_mem {
            let (a, far) = (self.acq[m], self.acq[n_mem + m] as usize);
            if a == 0 {
                continue;
            }
            // Out-of-order members lie after q.
            debug_assert!(far > q);
            let pr = self.profile[m]
                .as_ref()
                .expect("binding types have a profile");
            let size = g.inst.platform.mems[m].size;
            let k = match size.checked_sub(a) {
                None => Some(far - 1),
                Some(thr) => pr.last_above(q, far, thr),
            };
            if let Some(k) = k {
                wait = Some(wait.map_or(k, |w: usize| w.max(k)));
            }
        }
        match wait {
            Some(k) => Err(k),
            None => Ok(()),
        }
    }

    /// Records the holds of the out-of-order members of the set last passed
    /// to `check` (which accepted it).
    pub(super) fn commit(&mut self, md: &Model) {
        let (q, i) = self.plan;
        let g = md.g;
        for &(p, u) in &self.members[i..] {
            let p = p as usize;
            for (k, e) in g.mems(u).iter().enumerate() {
                let m = e.mem as usize;
                if md.binding[m] && md.holds_at_start(u, k) {
                    let pr = self.profile[m]
                        .as_mut()
                        .expect("binding types have a profile");
                    pr.add(q, p, e.amount);
                }
            }
            self.early_from[u as usize] = q as u32;
        }
    }

    /// Node `x` released its hold of type `m`. The serial completion then no
    /// longer holds it either: neither ahead of x's turn (the extra of an
    /// early start, undone exactly), nor from x's turn up to the turn of its
    /// last same-type successor, where the serial schedule released it (the
    /// base, lowered only on blocks wholly inside that span: a block answers
    /// for its largest member, which may not hold x).
    pub(super) fn released(&mut self, md: &Model, x: u32, m: usize, amount: u64) {
        if !md.binding[m] {
            return;
        }
        let p = self.guide.pos[x as usize] as usize;
        let q0 = self.early_from[x as usize];
        if q0 != u32::MAX {
            let pr = self.profile[m]
                .as_mut()
                .expect("binding types have a profile");
            pr.sub(q0 as usize, p, amount);
        }
        let r = self.serial_release(md, x, m as TypeIdx);
        let q = self.next_unstarted();
        let pr = self.profile[m]
            .as_mut()
            .expect("binding types have a profile");
        pr.sub_inner(q.max(p), r, amount);
    }

    /// The first position from which the guide's serial schedule no longer
    /// holds x's demand of type m: the first position of the joint group of
    /// its last same-type successor (every position of a group records the
    /// memory held after the whole group started, when the successor's
    /// start has released x), or the turn after x's own when it has none.
    fn serial_release(&mut self, md: &Model, x: u32, m: TypeIdx) -> usize {
        let g = md.g;
        let pos = &self.guide.pos;
        let mut last: Option<usize> = None;
        for y in g.intra_succs(x) {
            if g.demand(y, m) > 0 {
                last = last.max(Some(pos[y as usize] as usize));
            }
        }
        if g.is_sink(x)
            && let Some(k) = md.opm_index(g.node_op[x as usize], m)
        {
            if self.opm_last.is_empty() {
                self.opm_last = vec![u32::MAX; md.opm.len()];
            }
            if self.opm_last[k] == u32::MAX {
                let mut found: Option<usize> = None;
                for &b in g.op_succs(g.node_op[x as usize]) {
                    for y in g.sources(b) {
                        if g.demand(y, m) > 0 {
                            found = found.max(Some(pos[y as usize] as usize));
                        }
                    }
                }
                self.opm_last[k] = found.map_or(NO_SOURCE, |s| s as u32);
            }
            if self.opm_last[k] != NO_SOURCE {
                last = last.max(Some(self.opm_last[k] as usize));
            }
        }
        match last {
            Some(s) => self.guide.group_start(s),
            None => self.guide.pos[x as usize] as usize + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::NodeGraph;
    use crate::instance::parse_reader;

    /// The task book's joint start (problem.md §4.4): node 0 holds 1024 of
    /// 1024 until both successors (512 each) start, which the serial pass
    /// does as one group at positions 1 and 2; both positions record the
    /// memory after the group started (1024, node 0 released). Node 0's
    /// serial release is the group's first position, so its release lowers
    /// no position of the group: lowering position 1 as well (up to its
    /// last successor's own turn) would leave 0 there and let a guarded
    /// pass admit 1024 more where the completion holds 1024 already.
    #[test]
    fn a_holder_released_by_a_joint_group_is_released_at_its_first_position() {
        let text = "SetSocInfo([[0,2]],[[0,1024]])
AddOpInfo(1,1,0,[[1,2],[1,3]],[[1,0,5],[2,0,5],[3,0,5]],[[1,0,1024],[2,0,512],[3,0,512]])
GetInferenceScheResult([],[[1,1,1]])";
        let inst = parse_reader(text.as_bytes(), "unit").unwrap();
        let g = NodeGraph::new(&inst, vec![0]).unwrap();
        let md = Model::new(&g);
        let forever = Deadline::after(std::time::Duration::from_secs(60));
        let (gd, _) = Guide::new(&md, &[0, 1, 2], &forever).expect("a guide");
        assert_eq!(gd.list(), &[0, 1, 2]);
        assert_eq!((gd.group_start(1), gd.group_start(2)), (1, 1), "one group");
        let mut guard = gd.guard();
        assert_eq!(guard.serial_release(&md, 0, 0), 1);
        guard.released(&md, 0, 0, 1024);
        let pr = guard.profile[0].as_ref().expect("memory binds");
        assert_eq!((pr.max(0, 1), pr.max(1, 2), pr.max(2, 3)), (0, 1024, 1024));
    }
}
