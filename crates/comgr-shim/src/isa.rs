//! ISA names as COMGR and ROCR spell them: the code object target ID with its triple,
//! `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`. A bare processor (`gfx950`) is accepted too, as
//! `HSA_HOTSWAP_ISA_OVERRIDE` may give one.

pub const TRIPLE: &str = "amdgcn-amd-amdhsa";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsaName {
    pub processor: String,
    /// Target features with their setting, in the order given: ("xnack", '-').
    pub features: Vec<(String, char)>,
}

impl IsaName {
    pub fn parse(s: &str) -> Result<IsaName, String> {
        let s = s.trim();
        let rest = match s.split_once("--") {
            Some((triple, rest)) if triple == TRIPLE => rest,
            Some((triple, _)) => return Err(format!("ISA name `{s}`: triple `{triple}` is not `{TRIPLE}`")),
            None => s,
        };
        let mut parts = rest.split(':');
        let processor = parts.next().unwrap_or_default();
        let valid_proc = processor.len() > 3
            && processor.starts_with("gfx")
            && processor[3..].chars().all(|c| c.is_ascii_alphanumeric());
        if !valid_proc {
            return Err(format!("ISA name `{s}`: `{processor}` is not a gfx processor"));
        }
        let mut features = Vec::new();
        for f in parts {
            let sign = f.chars().last().filter(|c| *c == '+' || *c == '-');
            match sign {
                Some(c) if f.len() > 1 => features.push((f[..f.len() - 1].to_string(), c)),
                _ => return Err(format!("ISA name `{s}`: feature `{f}` must end in + or -")),
            }
        }
        Ok(IsaName { processor: processor.to_string(), features })
    }

    /// The translator's target for this processor; None unless it is gfx942 or gfx950.
    pub fn gpu_target(&self) -> Option<hotswap::GpuTarget> {
        match hotswap::GpuTarget::from_cpu(&self.processor) {
            Some(g @ (hotswap::GpuTarget::Gfx942 | hotswap::GpuTarget::Gfx950)) => Some(g),
            _ => None,
        }
    }

    pub fn feature(&self, name: &str) -> Option<char> {
        self.features.iter().find(|(n, _)| n == name).map(|(_, c)| *c)
    }

    /// The full name, `amdgcn-amd-amdhsa--<processor>[:<feature><sign>...]`.
    pub fn full(&self) -> String {
        let mut s = format!("{TRIPLE}--{}", self.processor);
        for (n, c) in &self.features {
            s.push(':');
            s.push_str(n);
            s.push(*c);
        }
        s
    }

    /// Whether code built for `produced` runs on a device that is `self`: same processor, and
    /// no feature set one way in `produced` and the other way here (a feature `produced` leaves
    /// unset means "any" and runs on both).
    pub fn accepts(&self, produced: &IsaName) -> Result<(), String> {
        if self.processor != produced.processor {
            return Err(format!("processor {} is not the requested {}", produced.processor, self.processor));
        }
        for (name, sign) in &produced.features {
            if let Some(want) = self.feature(name) {
                if want != *sign {
                    return Err(format!("{name}{sign} does not run on a {name}{want} device"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_full_and_bare_names() {
        let n = IsaName::parse("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-").unwrap();
        assert_eq!(n.processor, "gfx942");
        assert_eq!(n.feature("sramecc"), Some('+'));
        assert_eq!(n.feature("xnack"), Some('-'));
        assert_eq!(n.full(), "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-");
        assert_eq!(IsaName::parse("gfx950").unwrap().full(), "amdgcn-amd-amdhsa--gfx950");
        let b0 = IsaName::parse("amdgcn-amd-amdhsa--gfx1250:gfx1250-b0-specific+").unwrap();
        assert_eq!(b0.feature("gfx1250-b0-specific"), Some('+'));
    }

    #[test]
    fn rejects_malformed_names() {
        for bad in [
            "",
            "amdgcn-amd-amdhsa--",
            "x86_64-unknown-linux--gfx942",
            "gfx",
            "942",
            "gfx942:xnack",
            "gfx942:+",
            "gfx9 42",
        ] {
            assert!(IsaName::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn feature_compatibility() {
        let dev = IsaName::parse("gfx942:sramecc+:xnack-").unwrap();
        assert!(dev.accepts(&IsaName::parse("gfx942").unwrap()).is_ok());
        assert!(dev.accepts(&IsaName::parse("gfx942:xnack-").unwrap()).is_ok());
        assert!(dev.accepts(&IsaName::parse("gfx942:xnack+").unwrap()).is_err());
        assert!(dev.accepts(&IsaName::parse("gfx950").unwrap()).is_err());
        assert!(IsaName::parse("gfx942").unwrap().accepts(&IsaName::parse("gfx942:xnack+").unwrap()).is_ok());
    }
}
