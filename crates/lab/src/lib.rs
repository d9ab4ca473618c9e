//! barrage lab (to be written).
