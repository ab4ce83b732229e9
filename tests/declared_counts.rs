//! Memory follows what the input contains, not the counts it declares (issue
//! 10, fault 4): 65 core types of 2^20 cores each and two nodes. Measured with
//! a counting allocator (this test binary's own), so the figures are exact
//! and independent of the machine; the tests take a lock so that only one
//! runs at a time.
//!
//! The exact engines are driven from a given incumbent (`sat::search`,
//! `milp::search`): their own list-scheduling incumbent step belongs to the
//! list engine, whose per-core allocation is fixed in its rewrite
//! (`tests/faults.rs` has the end-to-end test, ignored until then).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tmin::graph::NodeGraph;
use tmin::instance::{Instance, parse_file};
use tmin::schedule::{Schedule, check, check_reader};
use tmin::solve::{SolveResult, Status};
use tmin::stop::Deadline;

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let n = NOW.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(n, Ordering::Relaxed);
        // SAFETY: forwarded to the system allocator with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: `p` came from `alloc` above with this layout.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            let n = NOW.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
            PEAK.fetch_max(n, Ordering::Relaxed);
        } else {
            NOW.fetch_sub(l.size() - new, Ordering::Relaxed);
        }
        // SAFETY: as `alloc`; `p` and `l` come from this allocator.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Peak bytes allocated (above what was allocated before) while `f` runs.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = NOW.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let r = f();
    (r, PEAK.load(Ordering::Relaxed) - before)
}

const MIB: usize = 1 << 20;

fn instance() -> Instance {
    let p = format!(
        "{}/tests/data/many-core-types.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    parse_file(std::path::Path::new(&p)).unwrap()
}

const SCHEDULE: &str = "[[1,0,1,7,1048575],[1,0,2,0,0]]";

fn legal_schedule(inst: &Instance) -> Schedule {
    let r = tmin::schedule::read_schedule(inst, SCHEDULE.as_bytes(), "s", 5).unwrap();
    r.schedule.unwrap()
}

#[test]
fn validator_and_bounds() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let inst = instance();
    let declared: u64 = inst.platform.cores.iter().map(|c| u64::from(c.count)).sum();
    assert_eq!(declared, 65 << 20);
    let (rep, peak) = peak_of(|| check_reader(&inst, SCHEDULE.as_bytes(), "s", 20).unwrap());
    assert!(rep.is_legal(), "{:?}", rep.violations.kept);
    assert_eq!(rep.makespan, Some(12));
    // Before: 48 bytes per declared core, 3.1 GiB. The lexer's buffer is 1 MiB.
    assert!(peak < 2 * MIB, "check: {peak} bytes");

    let s = legal_schedule(&inst);
    let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
    let (v, peak) = peak_of(|| check(&g, &s, 20));
    assert!(v.is_empty());
    assert!(peak < MIB / 4, "check: {peak} bytes");

    let (b, peak) = peak_of(|| tmin::bounds::combinatorial::lower_bounds(&inst));
    // Energetic reasoning on the memory (models/bounds.md §8): for a makespan
    // of 9 both nodes cover [4, 5), 60 + 50 > 100; the optimum is 12.
    assert_eq!(b.best.value, 10);
    assert!(peak < MIB / 4, "bounds: {peak} bytes");

    let (r, peak) = peak_of(|| SolveResult::found(&inst, s.clone(), 7, "b", "t").unwrap());
    assert_eq!(r.makespan, Some(12));
    assert!(peak < MIB / 4, "validation: {peak} bytes");
}

/// The incumbent: optimal (the two nodes cannot overlap, 60 + 50 > 100), with
/// the bound 7 below it, so the exact engines search and prove it.
fn incumbent(inst: &Instance) -> SolveResult {
    let r = SolveResult::found(inst, legal_schedule(inst), 7, "area", "given").unwrap();
    assert_eq!(r.status, Status::Feasible);
    r
}

#[test]
fn sat_search() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let inst = instance();
    let bounds = tmin::bounds::combinatorial::lower_bounds(&inst);
    let inc = incumbent(&inst);
    let deadline = Deadline::after(Duration::from_secs(60));
    let (r, peak) =
        peak_of(|| tmin::sat::search(&inst, &deadline, &bounds, inc, Default::default(), 512));
    assert_eq!(r.status, Status::Optimal, "{:?}", r.notes);
    assert_eq!(r.makespan, Some(12));
    assert!(peak < 4 * MIB, "sat: {peak} bytes");

    // The decoder of SAT models gave cores from a heap of every declared core
    // of every type (4 bytes each, 272 MiB here).
    use tmin::sat::encode::Decoded;
    use tmin::sat::model::{Model, candidates};
    let cand: Vec<Vec<u32>> = (0..inst.graph.n_ops() as u32)
        .map(|o| candidates(&inst, o))
        .collect();
    let m = Model::new(&inst, &cand);
    let d = Decoded {
        slot_of_op: vec![0],
        start: vec![7, 0],
    };
    let (s, peak) = peak_of(|| tmin::sat::to_schedule(&m, &d));
    assert!(peak < MIB / 4, "sat decoder: {peak} bytes");
    let g = NodeGraph::new(&inst, s.choice.clone()).unwrap();
    assert!(check(&g, &s, 5).is_empty());
}

#[test]
fn milp_search_and_its_decoder() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let inst = instance();
    let bounds = tmin::bounds::combinatorial::lower_bounds(&inst);
    let opts = tmin::solve::SolveOptions {
        time_limit: Duration::from_secs(60),
        ..Default::default()
    };
    let mopts = tmin::milp::MilpOptions::default();
    let deadline = Deadline::after(Duration::from_secs(60));
    // From the incumbent (its own tiling combination: no list pass).
    let inc = incumbent(&inst);
    let (r, peak) = peak_of(|| tmin::milp::search(&inst, &opts, &mopts, &deadline, &bounds, inc));
    assert_eq!(r.status, Status::Optimal, "{:?}", r.notes);
    assert_eq!(r.makespan, Some(12));
    assert!(peak < 8 * MIB, "milp: {peak} bytes");
    // Without one: every schedule comes from HiGHS through the decoder, which
    // gave cores from a table of every declared core (16 bytes each).
    let (r, peak) = peak_of(|| tmin::milp::solve_cold(&inst, &opts, &mopts));
    assert_eq!(r.status, Status::Optimal, "{:?}", r.notes);
    assert_eq!(r.makespan, Some(12));
    assert!(peak < 8 * MIB, "milp cold: {peak} bytes");
}
