//! The translation runs in-process: no llc, llvm-mc or lld child. This test forbids execve and
//! execveat in its own thread (a seccomp filter, inherited by any thread the translation
//! starts), translates every corpus object that translates, and checks the results are real
//! target code objects. Any attempt to run a program would fail with EPERM and surface as an
//! error or a missing result.

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn translation_spawns_no_process() {
    use hotswap::{GpuTarget, Options};
    // Load everything that might be loaded lazily before the filter goes in.
    hx_llvm::init();
    let objects: Vec<(String, Vec<u8>)> = hx_corpus::objects()
        .unwrap()
        .into_iter()
        .filter(|o| o.builds_for("gfx1250"))
        .map(|o| {
            let p = hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", o.name));
            (o.name, std::fs::read(p).unwrap())
        })
        .collect();
    let handle = std::thread::spawn(move || {
        forbid_exec();
        // The filter works: running a program from this thread fails.
        let probe = std::process::Command::new("/bin/true").status();
        assert!(probe.is_err(), "execve was not blocked: {probe:?}");
        let mut translated = Vec::new();
        for (name, bytes) in &objects {
            for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
                if let Ok(t) = hotswap::translate(bytes, &Options { target, ..Default::default() }) {
                    let co = hotswap::codeobj::CodeObject::parse(&t.bytes).unwrap();
                    assert_eq!(co.processor(), Some(target.cpu()));
                    translated.push(format!("{name}/{target}"));
                }
            }
        }
        translated
    });
    let translated = handle.join().expect("the translating thread");
    eprintln!("{} translations with execve forbidden: {translated:?}", translated.len());
    assert!(translated.len() >= 10, "only {} corpus translations succeeded", translated.len());
}

/// seccomp filter on the calling thread: execve and execveat fail with EPERM, all else runs.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn forbid_exec() {
    use libc::{sock_filter, sock_fprog};
    const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
    let stmt = |code: u32, k: u32| sock_filter { code: code as u16, jt: 0, jf: 0, k };
    let jeq = |k: u32, jt: u8, jf: u8| sock_filter { code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16, jt, jf, k };
    let ld = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u32;
    let ret = (libc::BPF_RET | libc::BPF_K) as u32;
    let filter = [
        // seccomp_data: nr at 0, arch at 4.
        stmt(ld, 4),
        jeq(AUDIT_ARCH_X86_64, 1, 0),
        stmt(ret, libc::SECCOMP_RET_KILL_PROCESS),
        stmt(ld, 0),
        jeq(libc::SYS_execve as u32, 2, 0),
        jeq(libc::SYS_execveat as u32, 1, 0),
        stmt(ret, libc::SECCOMP_RET_ALLOW),
        stmt(ret, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
    ];
    let prog = sock_fprog { len: filter.len() as u16, filter: filter.as_ptr() as *mut sock_filter };
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0, "PR_SET_NO_NEW_PRIVS");
        assert_eq!(libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog as *const sock_fprog), 0, "seccomp filter");
    }
}
