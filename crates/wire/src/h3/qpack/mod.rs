//! QPACK
