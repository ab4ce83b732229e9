//! The time unit: the gcd of the durations an engine may schedule. Every
//! makespan that matters is a sum of durations (a start is an end or 0 in some
//! optimal schedule: shift left), so the exact engines count time in units of
//! the gcd, which shrinks their models by that factor without losing an
//! optimum (models/sat.md §1, models/milp.md §2).

use crate::instance::Library;

/// Greatest common divisor (`gcd(0, b) = b`).
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The gcd of the durations of the nodes of `tilings` (1 when there is none, or
/// when every duration is 0).
pub fn duration_unit(lib: &Library, tilings: impl IntoIterator<Item = u32>) -> u64 {
    let mut g = 0u64;
    for t in tilings {
        for v in lib.tilings[t as usize].nodes() {
            g = gcd(g, lib.node_dur[v as usize]);
            if g == 1 {
                return 1;
            }
        }
    }
    g.max(1)
}

#[cfg(test)]
mod tests {
    use super::gcd;

    #[test]
    fn gcd_by_hand() {
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(gcd(0, 6), 6);
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(7, 13), 1);
        assert_eq!(gcd(u64::MAX, 3), 3);
    }
}
