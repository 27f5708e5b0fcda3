//! Developer check against files dumped to /tmp/relink (ignored by default).

#[test]
#[ignore]
fn quick_cmp_dumped() {
    let mut ok = 0;
    let mut bad = Vec::new();
    for t in ["gfx1250", "gfx942", "gfx950"] {
        let dir = std::path::PathBuf::from("/tmp/relink").join(t);
        let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "o")).collect();
        names.sort();
        for p in names {
            let obj = std::fs::read(&p).unwrap();
            let want = std::fs::read(p.with_extension("hsaco")).unwrap();
            match hx_relink::link(&obj) {
                Ok(got) => {
                    std::fs::write(p.with_extension("mine"), &got).unwrap();
                    if got == want { ok += 1 } else { bad.push(format!("{} differs", p.display())) }
                }
                Err(e) => bad.push(format!("{}: {e}", p.display())),
            }
        }
    }
    println!("ok {ok}");
    for b in &bad { println!("{b}"); }
    assert!(bad.is_empty());
}
