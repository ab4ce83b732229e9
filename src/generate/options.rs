//! The options of `tmin gen` (and of `tmin.gen` in Python) as one plain
//! record, and the family's configuration they make: which options apply
//! to which family, and the defaults of those left out. Messages name the
//! options as `tmin gen` spells them.

use super::{GenConfig, GenFamily, LanesConfig, PackedConfig};

/// The instance families.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Family {
    /// Random library and op graph, memory sized by `tightness`; proven feasible.
    #[default]
    Random,
    /// Perfectly packed witness: proven optimum, any size.
    Packed,
    /// Memory-packed witness (lanes of memory full at every instant): proven optimum.
    Lanes,
}

impl Family {
    pub const ALL: [Family; 3] = [Family::Random, Family::Packed, Family::Lanes];

    pub fn name(self) -> &'static str {
        match self {
            Family::Random => "random",
            Family::Packed => "packed",
            Family::Lanes => "lanes",
        }
    }

    /// The family of a name (`random`, `packed`, `lanes`).
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Every option of `tmin gen`; `None` where left to the family's default
/// (and refused by the families it does not apply to).
#[derive(Clone, Debug)]
pub struct GenOptions {
    pub family: Family,
    pub seed: u64,
    pub ops: u32,
    pub op_types: u32,
    pub shapes: Option<u32>,
    pub tilings: u32,
    /// Nodes per subgraph, `(min, max)`.
    pub nodes: (u32, u32),
    pub width: u32,
    /// Core counts per core type (packed: one count).
    pub cores: Option<Vec<u32>>,
    pub mem_types: u32,
    pub tightness: Option<f64>,
    pub graphs: u32,
    pub unusable: Option<f64>,
    pub max_time: u64,
    pub density: f64,
    pub mem_factor: Option<f64>,
    pub reach: Option<u32>,
    pub interleave: Option<u32>,
    pub lanes: Option<u32>,
    pub joins: Option<f64>,
    pub bind_cores: bool,
}

impl Default for GenOptions {
    /// The defaults of `tmin gen`.
    fn default() -> Self {
        let d = GenConfig::default();
        GenOptions {
            family: Family::Random,
            seed: d.seed,
            ops: d.ops,
            op_types: d.op_types,
            shapes: None,
            tilings: d.tilings,
            nodes: (d.nodes_min, d.nodes_max),
            width: d.width,
            cores: None,
            mem_types: d.mem_types,
            tightness: None,
            graphs: d.graphs,
            unusable: None,
            max_time: d.max_time,
            density: d.density,
            mem_factor: None,
            reach: None,
            interleave: None,
            lanes: None,
            joins: None,
            bind_cores: false,
        }
    }
}

/// The family's configuration, checked (`validate`), or the message naming
/// the option that does not fit.
pub fn config(a: &GenOptions) -> Result<GenFamily, String> {
    let (nodes_min, nodes_max) = a.nodes;
    let not_for = |option: &str, family: &str, instead: &str| {
        format!("{option} does not apply to --family {family}{instead}")
    };
    let lanes_only = [
        ("--lanes", a.lanes.is_some()),
        ("--joins", a.joins.is_some()),
        ("--bind-cores", a.bind_cores),
    ];
    if a.family != Family::Lanes
        && let Some((option, _)) = lanes_only.iter().find(|(_, given)| *given)
    {
        return Err(format!("{option} applies to --family lanes only"));
    }
    match a.family {
        Family::Lanes => lanes_config(a, nodes_min, nodes_max),
        Family::Random => {
            if a.reach.is_some() {
                return Err(not_for("--reach", "random", ""));
            }
            if a.interleave.is_some() {
                return Err(not_for("--interleave", "random", ""));
            }
            if a.mem_factor.is_some() {
                return Err(not_for(
                    "--mem-factor",
                    "random",
                    " (it sizes the memories of --family packed; use --tightness)",
                ));
            }
            let d = GenConfig::default();
            let cfg = GenConfig {
                seed: a.seed,
                ops: a.ops,
                op_types: a.op_types,
                shapes: a.shapes.unwrap_or(d.shapes),
                tilings: a.tilings,
                nodes_min,
                nodes_max,
                width: a.width,
                cores: a.cores.clone().unwrap_or(d.cores),
                mem_types: a.mem_types,
                tightness: a.tightness.unwrap_or(d.tightness),
                graphs: a.graphs,
                unusable: a.unusable.unwrap_or(d.unusable),
                max_time: a.max_time,
                density: a.density,
            };
            cfg.validate()?;
            Ok(GenFamily::Random(cfg))
        }
        Family::Packed => {
            if a.shapes.is_some() {
                return Err(not_for(
                    "--shapes",
                    "packed",
                    " (every op is its own group; its shape is its op id)",
                ));
            }
            if a.tightness.is_some() {
                return Err(not_for("--tightness", "packed", "; use --mem-factor"));
            }
            if a.unusable.is_some() {
                return Err(not_for(
                    "--unusable",
                    "packed",
                    " (every tiling is usable: they all share the op's work)",
                ));
            }
            let d = PackedConfig::default();
            let cores = match a.cores.as_deref() {
                None => d.cores,
                Some(&[k]) => k,
                Some(many) => {
                    return Err(format!(
                        "--cores: --family packed has one core type; give a single core \
                         count K (e.g. --cores 8), got '{}'",
                        many.iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(",")
                    ));
                }
            };
            let cfg = PackedConfig {
                seed: a.seed,
                ops: a.ops,
                op_types: a.op_types,
                tilings: a.tilings,
                nodes_min,
                nodes_max,
                width: a.width,
                cores,
                mem_types: a.mem_types,
                mem_factor: a.mem_factor.unwrap_or(d.mem_factor),
                graphs: a.graphs,
                max_time: a.max_time,
                density: a.density,
                reach: a.reach,
                interleave: a.interleave.unwrap_or(1),
            };
            cfg.validate()?;
            Ok(GenFamily::Packed(cfg))
        }
    }
}

/// `--family lanes`: its options, and the others refused by name.
fn lanes_config(a: &GenOptions, nodes_min: u32, nodes_max: u32) -> Result<GenFamily, String> {
    let refused = [
        ("--shapes", a.shapes.is_some()),
        ("--tightness", a.tightness.is_some()),
        ("--unusable", a.unusable.is_some()),
        ("--cores", a.cores.is_some()),
        ("--mem-factor", a.mem_factor.is_some()),
        ("--reach", a.reach.is_some()),
        ("--interleave", a.interleave.is_some()),
    ];
    if let Some((option, _)) = refused.iter().find(|(_, given)| *given) {
        return Err(format!(
            "{option} does not apply to --family lanes (its lanes fix memory and cores; see \
             the end of --help)"
        ));
    }
    let d = LanesConfig::default();
    let cfg = LanesConfig {
        seed: a.seed,
        ops: a.ops,
        op_types: a.op_types,
        tilings: a.tilings,
        nodes_min,
        nodes_max,
        lanes: a.lanes.unwrap_or(d.lanes),
        mem_types: a.mem_types,
        graphs: a.graphs,
        density: a.density,
        joins: a.joins.unwrap_or(d.joins),
        bind_cores: a.bind_cores,
    };
    cfg.validate()?;
    Ok(GenFamily::Lanes(cfg))
}
