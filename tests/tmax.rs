//! T_max (the score formula's slow reference) on the task book example, by hand.
use tmin::instance::parse_file;
use tmin::tmax::{node_range, t_max};

#[test]
fn task_book_example_t_max_and_node_range() {
    let inst = parse_file(std::path::Path::new("instances/example1.txt")).unwrap();
    // op 1 (type 1, shape 1024): tilings of work 5+10+5 = 20 and 5+5+5+5 = 20;
    // op 2 (type 2, shape 512): 4+6+4+6+4 = 24; op 3 (type 1, shape 256): 4+2+3 = 9.
    assert_eq!(t_max(&inst), Some(20 + 24 + 9));
    // op 1 has tilings of 3 and 4 nodes; ops 2 and 3 one tiling of 5 and 3 nodes.
    assert_eq!(node_range(&inst), Some((3 + 5 + 3, 4 + 5 + 3)));
    // The optimum (38) is below T_max, as the definition guarantees.
}
