//! barrage engine (to be written).
