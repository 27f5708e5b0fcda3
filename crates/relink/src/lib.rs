pub fn link(_b: &[u8]) -> Result<Vec<u8>, ()> { Err(()) }
