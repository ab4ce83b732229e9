//! The engines `--engine` offers, one registration line each: its name, its
//! one-line help (clap's possible values are read from here), and how it is
//! made from the options. A new engine is one module implementing
//! [`Engine`] and one line in [`BUILTIN`]; a library user adds one with
//! [`Registry::with`] (tests/registry.rs registers a test engine that way).

use crate::bnb::engine::BnbEngine;
use crate::engine::Engine;
use crate::instance::Instance;
use crate::list::engine::{GreedyEngine, ListEngine};
use crate::list::priority::Rule;
use crate::milp::MilpOptions;
use crate::milp::engine::MilpEngine;
use crate::portfolio::Portfolio;
use crate::sat::engine::SatEngine;
use crate::solve::{SolveOptions, SolveResult};

/// What engines are made with beyond `SolveOptions`: the MILP's options
/// (`--model`, `--export-model`) and the greedy rule (`--rule`).
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    pub milp: MilpOptions,
    pub rule: Rule,
}

/// One engine as `--engine` offers it.
#[derive(Clone, Copy, Debug)]
pub struct Registration {
    /// The `--engine` value, and the name results carry.
    pub name: &'static str,
    /// One line for `--help`.
    pub help: &'static str,
    pub make: fn(&EngineOptions) -> Box<dyn Engine>,
}

/// The engines of `tmin solve` and `tmin bench`, the default first.
#[rustfmt::skip]
pub const BUILTIN: &[Registration] = &[
    Registration { name: "auto", help: "List scheduling for the incumbent, then the exact engines by size", make: |o| Box::new(Portfolio { milp: o.milp.clone() }) },
    Registration { name: "list", help: "Memory-aware list scheduling with tiling search (fast, any size)", make: |_| Box::new(ListEngine::default()) },
    Registration { name: "milp", help: "Exact MILP (HiGHS), warm-started by list scheduling", make: |o| Box::new(MilpEngine { options: o.milp.clone() }) },
    Registration { name: "sat", help: "Exact SAT (varisat), warm-started by list scheduling", make: |_| Box::new(SatEngine::default()) },
    Registration { name: "bnb", help: "Depth-first search over start times, pruned by wasted memory and core time (finds packings; proves no bound)", make: |_| Box::new(BnbEngine) },
    Registration { name: "greedy", help: "One pass of one priority rule (--rule), no search: a baseline greedy", make: |o| Box::new(GreedyEngine(o.rule)) },
];

/// A set of engines to choose from by name.
#[derive(Clone, Debug)]
pub struct Registry {
    engines: Vec<Registration>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry {
            engines: BUILTIN.to_vec(),
        }
    }
}

impl Registry {
    /// The built-in engines and `extra` (a later one of the same name wins).
    pub fn with(mut self, extra: Registration) -> Registry {
        self.engines.retain(|r| r.name != extra.name);
        self.engines.push(extra);
        self
    }

    pub fn engines(&self) -> &[Registration] {
        &self.engines
    }

    /// The engine named `name`, made with `options`.
    pub fn choose(&self, name: &str, options: EngineOptions) -> Option<EngineChoice> {
        let registration = *self.engines.iter().find(|r| r.name == name)?;
        Some(EngineChoice {
            registration,
            options,
        })
    }
}

/// An engine picked from a registry, with the options it is made with.
#[derive(Clone, Debug)]
pub struct EngineChoice {
    registration: Registration,
    pub options: EngineOptions,
}

impl EngineChoice {
    /// A built-in engine by name, with default options (`None`: no such
    /// engine).
    pub fn builtin(name: &str) -> Option<EngineChoice> {
        Registry::default().choose(name, EngineOptions::default())
    }

    /// The `--engine` value.
    pub fn name(&self) -> &'static str {
        self.registration.name
    }

    /// What result folders record (`Engine::setting`).
    pub fn setting(&self) -> String {
        self.engine().setting()
    }

    pub fn engine(&self) -> Box<dyn Engine> {
        (self.registration.make)(&self.options)
    }
}

/// Runs the chosen engine alone (what `tmin solve` and `tmin bench` run).
pub fn run(inst: &Instance, choice: &EngineChoice, opts: &SolveOptions) -> SolveResult {
    crate::pipeline::solve(choice.engine().as_ref(), inst, opts)
}
