//! The binary's allocator: mimalloc for ordinary blocks, the system allocator for huge
//! ones.
//!
//! The normalizer allocates many small, short-lived values per line, where mimalloc is
//! markedly faster than the system allocator. A huge block (a line holding a 100 MB tool
//! output, grown as it is read) is another matter: mimalloc grows it by copying into a
//! new block and keeps the blocks it freed for a while, so the memory of a line read in
//! doublings adds up to about twice its size; the system allocator on Linux maps such a
//! block on its own, grows it by moving pages (`mremap`) and gives it back when freed. So
//! each block goes by its size: [`HUGE`] bytes or more to the system, the rest to
//! mimalloc. A block's size decides it when allocated, grown and freed alike (Rust hands
//! the same size back on each call), so each block is always with the allocator that made
//! it; one that crosses the line when resized is copied across.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;

/// Blocks this large or larger go to the system allocator (1 MiB: past the line buffer
/// the reader keeps between lines, so only a long line's buffer and what is as large).
pub const HUGE: usize = 1 << 20;

/// mimalloc for blocks under [`HUGE`], the system allocator for the others.
pub struct Allocator;

#[inline]
fn huge(size: usize) -> bool {
    size >= HUGE
}

// SAFETY: every call goes to the allocator that owns the block: the one `huge` names for
// the block's size, which Rust passes unchanged to `dealloc` and `realloc` (the
// `GlobalAlloc` contract); a resize that changes owner allocates with the new owner,
// copies the bytes both blocks hold and frees the old block with its owner.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout is passed on as it is.
        unsafe {
            match huge(layout.size()) {
                true => System.alloc(layout),
                false => MiMalloc.alloc(layout),
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            match huge(layout.size()) {
                true => System.alloc_zeroed(layout),
                false => MiMalloc.alloc_zeroed(layout),
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated with `layout`, so by the allocator `huge` names.
        unsafe {
            match huge(layout.size()) {
                true => System.dealloc(ptr, layout),
                false => MiMalloc.dealloc(ptr, layout),
            }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same owner: passed on as it is. Owner changes: the new block comes from
        // the new owner with the old alignment (`new_size` is valid with it, as the caller
        // guarantees), the bytes both hold are copied (two distinct blocks cannot
        // overlap), and the old block goes back to its owner.
        unsafe {
            match (huge(layout.size()), huge(new_size)) {
                (true, true) => System.realloc(ptr, layout, new_size),
                (false, false) => MiMalloc.realloc(ptr, layout, new_size),
                _ => {
                    let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                    let moved = self.alloc(new_layout);
                    if !moved.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HUGE;

    /// Blocks grown and shrunk across the line keep their bytes (the tests run on this
    /// allocator: it is the binary's global one).
    #[test]
    fn a_block_keeps_its_bytes_across_the_line() {
        let mut bytes: Vec<u8> = (0..=255).cycle().take(HUGE - 8).collect();
        bytes.extend((0..=255).cycle().take(HUGE));
        assert!(bytes.capacity() >= HUGE);
        assert!(
            bytes
                .iter()
                .take(HUGE - 8)
                .copied()
                .eq((0..=255).cycle().take(HUGE - 8))
        );
        bytes.truncate(1000);
        bytes.shrink_to_fit();
        assert!(bytes.iter().copied().eq((0..=255).cycle().take(1000)));
        let zeroed = vec![0_u64; HUGE / 8 + 1];
        assert!(zeroed.iter().all(|word| *word == 0));
    }
}
