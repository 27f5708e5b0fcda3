//! Handle tables. A handle is a number from one process-wide counter (never 0, never reused), so a
//! stale, foreign or made-up handle is found missing and reported as an invalid argument instead of
//! being dereferenced.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

static NEXT: AtomicU64 = AtomicU64::new(1);

pub struct Table<T> {
    map: Mutex<Option<HashMap<u64, Arc<T>>>>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table::new()
    }
}

impl<T> Table<T> {
    pub const fn new() -> Table<T> {
        Table { map: Mutex::new(None) }
    }

    fn with<R>(&self, f: impl FnOnce(&mut HashMap<u64, Arc<T>>) -> R) -> R {
        let mut g = self.map.lock().unwrap_or_else(|p| p.into_inner());
        f(g.get_or_insert_with(HashMap::new))
    }

    pub fn insert(&self, value: T) -> u64 {
        let h = NEXT.fetch_add(1, Ordering::Relaxed);
        self.with(|m| m.insert(h, Arc::new(value)));
        h
    }

    pub fn get(&self, handle: u64) -> Option<Arc<T>> {
        self.with(|m| m.get(&handle).cloned())
    }

    pub fn remove(&self, handle: u64) -> Option<Arc<T>> {
        self.with(|m| m.remove(&handle))
    }

    pub fn len(&self) -> usize {
        self.with(|m| m.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A COMGR data object: a kind, bytes and a name.
pub struct DataObject {
    pub kind: u32,
    pub inner: Mutex<DataInner>,
}

#[derive(Default)]
pub struct DataInner {
    pub bytes: Arc<[u8]>,
    pub name: String,
}

impl DataObject {
    pub fn new(kind: u32, bytes: Vec<u8>) -> DataObject {
        DataObject { kind, inner: Mutex::new(DataInner { bytes: bytes.into(), name: String::new() }) }
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, DataInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn bytes(&self) -> Arc<[u8]> {
        self.lock().bytes.clone()
    }
}
