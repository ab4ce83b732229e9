//! Runs an engine alone: the bounds every search starts from (`bounds`),
//! the incumbent step, the engine's search and list scheduling for whatever
//! time an unfinished search leaves (`steps`). `tmin solve` and `tmin bench`
//! both come here through `registry::run`, so a bench line says what `tmin
//! solve` would have said with the same settings.

pub mod bounds;
pub mod policy;
pub mod steps;

use std::time::{Duration, Instant};

use crate::bounds::combinatorial::lower_bounds;
use crate::bounds::nogoods::{LevelRefutations, TilingNogoods};
use crate::engine::{Context, Engine};
use crate::instance::Instance;
use crate::solve::{NoteKind, SolveOptions, SolveResult, Status};
use bounds::{refute_choices, strengthen};
use steps::{incumbent, list_for_the_rest};

/// Runs `engine` alone on `inst` within `opts.time_limit`.
pub fn solve(engine: &dyn Engine, inst: &Instance, opts: &SolveOptions) -> SolveResult {
    let t0 = Instant::now();
    let deadline = opts.deadline();
    let mut bounds = lower_bounds(inst);
    if let Err(e) = crate::tmax::start_limit(inst) {
        // Beyond the start times any engine writes: the combinatorial
        // bounds hold (they saturate downwards), nothing else is claimed.
        let mut r = SolveResult::without_schedule(
            Status::Unknown,
            bounds.best.value,
            &bounds.best.source,
            engine.name(),
        );
        r.note(e.msg);
        r.wall_seconds = t0.elapsed().as_secs_f64();
        return r;
    }
    if engine.wants_proven_bounds() {
        // Engines with an incumbent step get the window net's bound there,
        // capped by the incumbent (`incumbent`); list scheduling alone gets
        // it here, to know when to stop.
        let windows = opts.certify.is_none() && !engine.runs_incumbent_step();
        // Certified proofs rest on the encoding alone: no refuted choices
        // (uncertified SAT answers) under `--certify`.
        let refute = opts.certify.is_none().then_some(opts.memory_limit_mib);
        if let Some(mib) = refute {
            refute_choices(inst, &mut bounds, &deadline, mib);
        }
        strengthen(inst, &mut bounds, &deadline, windows, refute);
    }
    if bounds.best.value > 0 {
        opts.events.bound(bounds.best.value, &bounds.best.source);
    }
    let at_levels = LevelRefutations::default();
    let ctx = Context {
        inst,
        bounds: &bounds,
        at_levels: &at_levels,
        deadline,
        opts,
    };
    let mut r = solve_in(engine, &ctx);
    // The engine asked for answers for the result, also where its incumbent
    // step settled the instance before its own search ran.
    if !r.engine.starts_with(engine.name()) {
        r.engine = engine.name().to_string();
    }
    note_refuted(inst, &bounds.nogoods, &mut r);
    r.wall_seconds = t0.elapsed().as_secs_f64();
    r
}

/// Most refuted tilings named one by one in a result's notes.
const REFUTED_NOTES: usize = 10;

/// The refuted tiling choices in the result's notes: each refuted tiling (up
/// to `REFUTED_NOTES`) as proven unschedulable, then the counts.
fn note_refuted(inst: &Instance, ng: &TilingNogoods, r: &mut SolveResult) {
    if ng.is_empty() {
        return;
    }
    for &(op, t) in ng.refuted.iter().take(REFUTED_NOTES) {
        let o = &inst.graph.ops[op as usize];
        let tiling = inst.library.tilings[t as usize].id;
        r.note_as(
            NoteKind::Unschedulable {
                op: o.id,
                tiling,
                proven: true,
            },
            format!(
                "op {} tiling {tiling}: no legal schedule beside its neighbouring ops (refuted)",
                o.id
            ),
        );
    }
    if ng.refuted.len() > REFUTED_NOTES {
        r.note(format!(
            "... and {} more refuted tilings",
            ng.refuted.len() - REFUTED_NOTES
        ));
    }
    r.note_as(NoteKind::Pruned, ng.summary());
}

/// [`solve`] within a given context.
pub fn solve_in(engine: &dyn Engine, ctx: &Context) -> SolveResult {
    let Some(share) = engine.incumbent_share() else {
        let none = SolveResult::without_schedule(
            Status::Unknown,
            ctx.bounds.best.value,
            &ctx.bounds.best.source,
            engine.name(),
        );
        let r = engine.search(ctx, none);
        r.offer_to(&ctx.opts.events);
        return r;
    };
    // A settled incumbent goes to the engine too: it hands it back at once
    // (saying so where a user asked it for something, e.g. a model export).
    let r = engine.search(ctx, incumbent(ctx, share));
    r.offer_to(&ctx.opts.events);
    list_for_the_rest(ctx, r)
}

/// Time kept back from the engines for what follows them: the final
/// validation in `SolveResult::found`, the node graph and `write_schedule`,
/// and the summary. Measured at 10^6 nodes (`tmin gen --ops 10000 --nodes
/// 100-100 --seed 1`, three runs, results/sat-budget.md): validation 160-205
/// ns a node, node graph and writing 96-158 ns a node, the summary nothing
/// to speak of; the reserve is three times 350 ns a node, plus 20 ms.
pub fn output_reserve(nodes: u64) -> Duration {
    const MEASURED_NS_PER_NODE: u64 = 350;
    Duration::from_millis(20) + Duration::from_nanos(nodes.saturating_mul(3 * MEASURED_NS_PER_NODE))
}

/// What the engines get when the whole command must end by `end`: what is
/// left, less the reserve for validating and writing.
pub fn engine_budget(inst: &Instance, end: Instant) -> Duration {
    let reserve = output_reserve(inst.max_nodes());
    end.saturating_duration_since(Instant::now())
        .saturating_sub(reserve)
}
