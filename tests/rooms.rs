//! The rooms of `src/` (docs/architecture.md): no import cycle between the
//! library's top-level modules, and the engine interface imports no engine.
//! A reference is any `crate::ROOM` path in a room's source, tests included
//! (a test module that reaches up is a dependency too; rooms name each
//! other only by `crate::` paths).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every top-level room of the library and the rooms its files name.
fn rooms() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names = BTreeSet::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        let n = e.file_name().to_string_lossy().into_owned();
        if n == "lib.rs" || n == "bin" {
            continue;
        }
        names.insert(n.trim_end_matches(".rs").to_string());
    }
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for room in &names {
        let mut files = Vec::new();
        collect(&src.join(room), &mut files);
        collect(&src.join(format!("{room}.rs")), &mut files);
        let used = deps.entry(room.clone()).or_default();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, _) in text.match_indices("crate::") {
                let rest = &text[i + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if names.contains(&name) && &name != room {
                    used.insert(name);
                }
            }
        }
    }
    deps
}

fn collect(p: &Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            collect(&e.unwrap().path(), out);
        }
    } else if p.is_file() && p.extension().is_some_and(|x| x == "rs") {
        out.push(p.to_path_buf());
    }
}

#[test]
fn no_import_cycle_between_rooms() {
    let deps = rooms();
    // Depth-first search for a path back to where it started.
    fn reaches(
        deps: &BTreeMap<String, BTreeSet<String>>,
        from: &str,
        to: &str,
        seen: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> bool {
        for next in &deps[from] {
            if next == to {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if reaches(deps, next, to, seen, path) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    assert!(deps.len() > 20, "{deps:?}");
    for room in deps.keys() {
        let mut path = vec![room.clone()];
        let cycle = reaches(&deps, room, room, &mut BTreeSet::new(), &mut path);
        assert!(!cycle, "an import cycle: {}", path.join(" -> "));
    }
}

#[test]
fn the_engine_interface_imports_no_engine() {
    let deps = rooms();
    for engine in [
        "list",
        "sat",
        "milp",
        "portfolio",
        "pipeline",
        "registry",
        "local",
    ] {
        assert!(
            !deps["engine"].contains(engine),
            "engine.rs imports {engine}: {:?}",
            deps["engine"]
        );
    }
    // And the bounds layer no solver.
    for solver in ["list", "sat", "milp", "portfolio", "pipeline", "engine"] {
        assert!(!deps["bounds"].contains(solver), "{:?}", deps["bounds"]);
    }
}
