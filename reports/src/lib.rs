//! Placeholder replaced in the spine commit.
