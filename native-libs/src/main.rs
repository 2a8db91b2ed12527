//! `cargo run -q -p native-libs` prints the directory holding the built libraries, for `relink -L`.

fn main() {
    println!("{}", native_libs::lib_dir().display());
}
