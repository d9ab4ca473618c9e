//! gRPC message schemas without protoc, for `barrage load --grpc` and `barrage serve`'s gRPC
//! service: a schema is a pool of message and service descriptors, read from `.proto` files
//! compiled at run time ([`Schema::from_proto_files`], protox), from a descriptor set
//! (`--protoset`, [`Schema::from_protoset`]) or from the files a server's reflection service
//! sends ([`Schema::from_file_descriptors`], with the protocol's own messages in
//! [`reflection`]). A call names its [`Method`], which encodes JSON request bodies to protobuf
//! bytes (once per distinct body: the caller keeps the bytes) and decodes replies.
//!
//! No network I/O and no clock: files are read here because a schema is a file, but talking to
//! a server (reflection included) is the engine's.

use std::path::{Path, PathBuf};

use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, MethodDescriptor};

pub mod reflection;

/// Why a schema or a message could not be had. Each says what to fix in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// A `.proto` file did not compile (its path and line are in the message).
    #[error("{0}")]
    Compile(String),
    /// A descriptor set (or a reflection answer) did not decode or link.
    #[error("descriptor set: {0}")]
    Descriptors(String),
    /// The call is not `package.Service/Method`.
    #[error("--call {0:?}: expected package.Service/Method (or package.Service.Method)")]
    BadCall(String),
    /// No such service in the schema.
    #[error("no service {name:?} in the schema; it has: {known}")]
    NoService { name: String, known: String },
    /// No such method in the service.
    #[error("service {service} has no method {method:?}; it has: {known}")]
    NoMethod {
        service: String,
        method: String,
        known: String,
    },
    /// A JSON body that is not the method's request message (`line` counts from 1 in a
    /// file of one body per line).
    #[error("{}{message_type}: {reason}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Json {
        message_type: String,
        reason: String,
        line: Option<usize>,
    },
    /// Bytes that are not the method's reply message.
    #[error("{message_type}: {reason}")]
    Decode {
        message_type: String,
        reason: String,
    },
}

/// A pool of descriptors: every message and service a call may name.
#[derive(Debug, Clone)]
pub struct Schema {
    pool: DescriptorPool,
}

impl Schema {
    /// Compiles `.proto` files. Imports are looked up in `includes` and, when none is given,
    /// in each file's own directory (as ghz and grpcurl do); the well-known types
    /// (`google/protobuf/*.proto`) are built in.
    pub fn from_proto_files(
        files: &[PathBuf],
        includes: &[PathBuf],
    ) -> Result<Schema, SchemaError> {
        let mut dirs: Vec<PathBuf> = includes.to_vec();
        if dirs.is_empty() {
            for f in files {
                let d = f
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                if !dirs.iter().any(|x| x == d) {
                    dirs.push(d.to_path_buf());
                }
            }
        }
        let compile = || -> Result<DescriptorPool, protox::Error> {
            let mut c = protox::Compiler::new(&dirs)?;
            c.include_imports(true);
            c.open_files(files)?;
            Ok(c.descriptor_pool())
        };
        let pool = compile().map_err(|e| SchemaError::Compile(located(&e)))?;
        Ok(Schema { pool })
    }

    /// Reads a descriptor set (a `FileDescriptorSet`, as `protoc --descriptor_set_out
    /// --include_imports` or `buf build -o` write).
    pub fn from_protoset(bytes: &[u8]) -> Result<Schema, SchemaError> {
        let pool =
            DescriptorPool::decode(bytes).map_err(|e| SchemaError::Descriptors(e.to_string()))?;
        Ok(Schema { pool })
    }

    /// Links serialized `FileDescriptorProto`s (what reflection answers), in any order: each
    /// file is added once every file it imports is in.
    pub fn from_file_descriptors(files: &[Vec<u8>]) -> Result<Schema, SchemaError> {
        let err = |e: &dyn std::fmt::Display| SchemaError::Descriptors(e.to_string());
        let mut pending = Vec::new();
        for f in files {
            pending.push(prost_types::FileDescriptorProto::decode(&f[..]).map_err(|e| err(&e))?);
        }
        let mut pool = DescriptorPool::new();
        while !pending.is_empty() {
            let ready = pending.iter().position(|f| {
                f.dependency
                    .iter()
                    .all(|d| pool.get_file_by_name(d).is_some())
            });
            let Some(i) = ready else {
                let missing: Vec<&str> = pending[0]
                    .dependency
                    .iter()
                    .filter(|d| pool.get_file_by_name(d).is_none())
                    .map(String::as_str)
                    .collect();
                return Err(SchemaError::Descriptors(format!(
                    "{} imports {} which no file provides",
                    pending[0].name(),
                    missing.join(", ")
                )));
            };
            let f = pending.swap_remove(i);
            if pool.get_file_by_name(f.name()).is_none() {
                pool.add_file_descriptor_proto(f).map_err(|e| err(&e))?;
            }
        }
        Ok(Schema { pool })
    }

    /// Compiles `.proto` sources held in memory, `(file name, text)`, each importing only
    /// files given before it (a server's own services: nothing is read from disk).
    pub fn from_sources(files: &[(&str, &str)]) -> Result<Schema, SchemaError> {
        let mut pool = DescriptorPool::new();
        for (name, text) in files {
            let f = protox::file::File::from_source(name, text)
                .map_err(|e| SchemaError::Compile(format!("{name}: {e}")))?;
            pool.add_file_descriptor_proto(f.file_descriptor_proto().clone())
                .map_err(|e| SchemaError::Descriptors(e.to_string()))?;
        }
        Ok(Schema { pool })
    }

    /// The file that declares `symbol` (a service, a method as `pkg.Svc.Method`, or a
    /// message, by full name) and every file it imports, the file first, each serialized: a
    /// reflection answer's `file_descriptor_proto`s. None when the schema has no such symbol.
    pub fn file_containing(&self, symbol: &str) -> Option<Vec<Vec<u8>>> {
        let file = self
            .pool
            .get_service_by_name(symbol)
            .map(|s| s.parent_file())
            .or_else(|| {
                self.pool
                    .get_message_by_name(symbol)
                    .map(|m| m.parent_file())
            })
            .or_else(|| {
                let (svc, m) = symbol.rsplit_once('.')?;
                let s = self.pool.get_service_by_name(svc)?;
                let found = s.methods().any(|x| x.name() == m);
                found.then(|| s.parent_file())
            })?;
        Some(with_imports(&file))
    }

    /// The file named `name` and every file it imports, serialized (as
    /// [`Schema::file_containing`]).
    pub fn file_by_name(&self, name: &str) -> Option<Vec<Vec<u8>>> {
        self.pool.get_file_by_name(name).map(|f| with_imports(&f))
    }

    /// The schema's services by full name, sorted.
    pub fn services(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .pool
            .services()
            .map(|s| s.full_name().to_owned())
            .collect();
        v.sort();
        v
    }

    /// The method `call` names: `package.Service/Method`, `package.Service.Method`, with or
    /// without a leading `/`.
    pub fn method(&self, call: &str) -> Result<Method, SchemaError> {
        let (service, method) =
            split_call(call).ok_or_else(|| SchemaError::BadCall(call.to_owned()))?;
        let svc = self
            .pool
            .get_service_by_name(service)
            .ok_or_else(|| SchemaError::NoService {
                name: service.to_owned(),
                known: list(self.services()),
            })?;
        let m =
            svc.methods()
                .find(|m| m.name() == method)
                .ok_or_else(|| SchemaError::NoMethod {
                    service: service.to_owned(),
                    method: method.to_owned(),
                    known: list(svc.methods().map(|m| m.name().to_owned()).collect()),
                })?;
        Ok(Method { desc: m })
    }
}

/// What a method streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Unary,
    ServerStreaming,
    ClientStreaming,
    Bidi,
}

/// One method of a service: its path, its kind, and its messages' encoding.
#[derive(Debug, Clone)]
pub struct Method {
    desc: MethodDescriptor,
}

impl Method {
    /// The HTTP/2 `:path` of a call: `/package.Service/Method`.
    pub fn path(&self) -> String {
        format!(
            "/{}/{}",
            self.desc.parent_service().full_name(),
            self.desc.name()
        )
    }

    pub fn kind(&self) -> Kind {
        match (
            self.desc.is_client_streaming(),
            self.desc.is_server_streaming(),
        ) {
            (false, false) => Kind::Unary,
            (false, true) => Kind::ServerStreaming,
            (true, false) => Kind::ClientStreaming,
            (true, true) => Kind::Bidi,
        }
    }

    /// The request message's full name.
    pub fn input(&self) -> String {
        self.desc.input().full_name().to_owned()
    }

    /// The reply message's full name.
    pub fn output(&self) -> String {
        self.desc.output().full_name().to_owned()
    }

    /// The messages of `--data`: one JSON object is one message; a JSON array is one message
    /// per element (a client-streaming call's stream, as ghz reads it), for any method.
    pub fn encode_data(&self, json: &str) -> Result<Vec<Vec<u8>>, SchemaError> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| self.json_err(&e, None))?;
        match value {
            serde_json::Value::Array(items) => {
                items.iter().map(|v| self.encode_value(v, None)).collect()
            }
            v => Ok(vec![self.encode_value(&v, None)?]),
        }
    }

    /// One message per non-empty line of `text` (`--body-lines`), each line a JSON object.
    pub fn encode_lines(&self, text: &str) -> Result<Vec<Vec<u8>>, SchemaError> {
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| self.json_err(&e, Some(i + 1)))?;
            out.push(self.encode_value(&v, Some(i + 1))?);
        }
        Ok(out)
    }

    /// A reply's bytes as JSON (protobuf's JSON mapping), or why they are not the reply.
    pub fn decode_reply(&self, bytes: &[u8]) -> Result<String, SchemaError> {
        let out = self.desc.output();
        let m = DynamicMessage::decode(out.clone(), bytes).map_err(|e| SchemaError::Decode {
            message_type: out.full_name().to_owned(),
            reason: e.to_string(),
        })?;
        serde_json::to_string(&m).map_err(|e| SchemaError::Decode {
            message_type: out.full_name().to_owned(),
            reason: e.to_string(),
        })
    }

    fn encode_value(
        &self,
        v: &serde_json::Value,
        line: Option<usize>,
    ) -> Result<Vec<u8>, SchemaError> {
        encode_json(&self.desc.input(), v).map_err(|e| self.json_err(&e, line))
    }

    fn json_err(&self, e: &dyn std::fmt::Display, line: Option<usize>) -> SchemaError {
        SchemaError::Json {
            message_type: self.input(),
            reason: e.to_string(),
            line,
        }
    }
}

/// A JSON value as `desc`'s message, encoded (unknown fields refused).
fn encode_json(
    desc: &MessageDescriptor,
    v: &serde_json::Value,
) -> Result<Vec<u8>, serde_json::Error> {
    let m = DynamicMessage::deserialize(desc.clone(), v)?;
    Ok(m.encode_to_vec())
}

fn split_call(call: &str) -> Option<(&str, &str)> {
    let c = call.strip_prefix('/').unwrap_or(call);
    let (svc, m) = c.rsplit_once('/').or_else(|| c.rsplit_once('.'))?;
    (!svc.is_empty() && !m.is_empty() && !m.contains('/')).then_some((svc, m))
}

fn list(v: Vec<String>) -> String {
    if v.is_empty() {
        "none".to_owned()
    } else {
        v.join(", ")
    }
}

/// protox's error as `file:line:column: message` when it points into a file, on one line.
fn located(e: &protox::Error) -> String {
    use miette::Diagnostic as _;
    let message = one_line(e);
    let at = e.labels().and_then(|mut l| l.next()).and_then(|label| {
        let src = e.source_code()?;
        let c = src.read_span(label.inner(), 0, 0).ok()?;
        Some((c.line() + 1, c.column() + 1))
    });
    match (e.file(), at) {
        (Some(f), Some((line, col))) => format!("{f}:{line}:{col}: {message}"),
        (Some(f), None) if !message.contains(f) => format!("{f}: {message}"),
        _ => message,
    }
}

/// An error's text on one line (protox's carry a source excerpt over several).
fn one_line(e: &dyn std::fmt::Display) -> String {
    e.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `file` and the files it imports, each serialized, `file` first.
fn with_imports(file: &prost_reflect::FileDescriptor) -> Vec<Vec<u8>> {
    std::iter::once(file.clone())
        .chain(file.dependencies())
        .map(|f| f.file_descriptor_proto().encode_to_vec())
        .collect()
}

#[cfg(test)]
mod tests;
