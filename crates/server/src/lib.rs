//! barrage server (to be written).
