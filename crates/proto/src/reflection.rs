//! The server reflection protocol's messages (`grpc.reflection.v1` and `v1alpha`), built from
//! the protocol's own `.proto` (compiled here at first use, no generated code): the requests a
//! client sends on `ServerReflectionInfo` and the answers it reads, and the same pair read and
//! written from the server's side.

use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, Value};

use crate::SchemaError;

const SOURCE: &str = include_str!("proto/reflection.proto");

/// The protocol's two versions: the same messages under two packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1,
    V1Alpha,
}

impl Version {
    pub fn package(self) -> &'static str {
        match self {
            Version::V1 => "grpc.reflection.v1",
            Version::V1Alpha => "grpc.reflection.v1alpha",
        }
    }

    /// The `:path` of the reflection call.
    pub fn path(self) -> String {
        format!("/{}.ServerReflection/ServerReflectionInfo", self.package())
    }
}

/// What one reflection request asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    ListServices,
    FileContainingSymbol(String),
    FileByFilename(String),
    /// A request this side does not answer (extensions): the server answers UNIMPLEMENTED.
    Other,
}

/// What one reflection answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Services(Vec<String>),
    /// Serialized `FileDescriptorProto`s: [`crate::Schema::from_file_descriptors`] links them.
    Files(Vec<Vec<u8>>),
    Error {
        code: i32,
        message: String,
    },
}

/// The protocol's messages in one version.
#[derive(Debug, Clone)]
pub struct Reflection {
    request: MessageDescriptor,
    response: MessageDescriptor,
}

impl Reflection {
    pub fn new(version: Version) -> Reflection {
        let source = SOURCE.replace(
            "package grpc.reflection.v1;",
            &format!("package {};", version.package()),
        );
        let file = protox::file::File::from_source("reflection.proto", &source)
            .expect("the bundled reflection.proto parses");
        let mut pool = DescriptorPool::new();
        pool.add_file_descriptor_proto(file.file_descriptor_proto().clone())
            .expect("the bundled reflection.proto links");
        let get = |n: &str| {
            pool.get_message_by_name(&format!("{}.{n}", version.package()))
                .expect("declared in reflection.proto")
        };
        Reflection {
            request: get("ServerReflectionRequest"),
            response: get("ServerReflectionResponse"),
        }
    }

    /// A request, encoded.
    pub fn request(&self, r: &Request) -> Vec<u8> {
        let mut m = DynamicMessage::new(self.request.clone());
        match r {
            Request::ListServices => {
                m.set_field_by_name("list_services", Value::String("*".into()))
            }
            Request::FileContainingSymbol(s) => {
                m.set_field_by_name("file_containing_symbol", Value::String(s.clone()))
            }
            Request::FileByFilename(s) => {
                m.set_field_by_name("file_by_filename", Value::String(s.clone()))
            }
            Request::Other => {}
        }
        m.encode_to_vec()
    }

    /// Reads a request (the server's side).
    pub fn read_request(&self, bytes: &[u8]) -> Result<Request, SchemaError> {
        let m = decode(&self.request, bytes)?;
        let s = |name: &str| {
            m.get_field_by_name(name)
                .and_then(|v| v.as_str().map(str::to_owned))
        };
        Ok(if m.has_field_by_name("list_services") {
            Request::ListServices
        } else if m.has_field_by_name("file_containing_symbol") {
            Request::FileContainingSymbol(s("file_containing_symbol").unwrap_or_default())
        } else if m.has_field_by_name("file_by_filename") {
            Request::FileByFilename(s("file_by_filename").unwrap_or_default())
        } else {
            Request::Other
        })
    }

    /// An answer, encoded (the server's side).
    pub fn answer(&self, a: &Answer) -> Vec<u8> {
        let mut m = DynamicMessage::new(self.response.clone());
        let sub = |name: &str| {
            let f = self.response.get_field_by_name(name).expect("declared");
            DynamicMessage::new(f.kind().as_message().expect("a message field").clone())
        };
        match a {
            Answer::Services(names) => {
                let mut list = sub("list_services_response");
                let svc_desc = prost_reflect::ReflectMessage::descriptor(&list)
                    .get_field_by_name("service")
                    .and_then(|f| f.kind().as_message().cloned())
                    .expect("declared");
                let items = names
                    .iter()
                    .map(|n| {
                        let mut s = DynamicMessage::new(svc_desc.clone());
                        s.set_field_by_name("name", Value::String(n.clone()));
                        Value::Message(s)
                    })
                    .collect();
                list.set_field_by_name("service", Value::List(items));
                m.set_field_by_name("list_services_response", Value::Message(list));
            }
            Answer::Files(files) => {
                let mut f = sub("file_descriptor_response");
                let items = files
                    .iter()
                    .map(|b| Value::Bytes(b.clone().into()))
                    .collect();
                f.set_field_by_name("file_descriptor_proto", Value::List(items));
                m.set_field_by_name("file_descriptor_response", Value::Message(f));
            }
            Answer::Error { code, message } => {
                let mut e = sub("error_response");
                e.set_field_by_name("error_code", Value::I32(*code));
                e.set_field_by_name("error_message", Value::String(message.clone()));
                m.set_field_by_name("error_response", Value::Message(e));
            }
        }
        m.encode_to_vec()
    }

    /// Reads an answer (the client's side).
    pub fn read_answer(&self, bytes: &[u8]) -> Result<Answer, SchemaError> {
        let m = decode(&self.response, bytes)?;
        let msg = |name: &str| match m.get_field_by_name(name).as_deref() {
            Some(Value::Message(x)) => Some(x.clone()),
            _ => None,
        };
        if m.has_field_by_name("list_services_response") {
            let l = msg("list_services_response").expect("has it");
            let names = match l.get_field_by_name("service").as_deref() {
                Some(Value::List(items)) => items
                    .iter()
                    .filter_map(|v| match v {
                        Value::Message(s) => s
                            .get_field_by_name("name")
                            .and_then(|n| n.as_str().map(str::to_owned)),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            return Ok(Answer::Services(names));
        }
        if m.has_field_by_name("file_descriptor_response") {
            let f = msg("file_descriptor_response").expect("has it");
            let files = match f.get_field_by_name("file_descriptor_proto").as_deref() {
                Some(Value::List(items)) => items
                    .iter()
                    .filter_map(|v| v.as_bytes().map(|b| b.to_vec()))
                    .collect(),
                _ => Vec::new(),
            };
            return Ok(Answer::Files(files));
        }
        if let Some(e) = msg("error_response") {
            let code = e
                .get_field_by_name("error_code")
                .and_then(|v| v.as_i32())
                .unwrap_or(0);
            let message = e
                .get_field_by_name("error_message")
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            return Ok(Answer::Error { code, message });
        }
        Err(SchemaError::Decode {
            message_type: self.response.full_name().to_owned(),
            reason: "an answer with no response in it".into(),
        })
    }
}

fn decode(desc: &MessageDescriptor, bytes: &[u8]) -> Result<DynamicMessage, SchemaError> {
    DynamicMessage::decode(desc.clone(), bytes).map_err(|e| SchemaError::Decode {
        message_type: desc.full_name().to_owned(),
        reason: e.to_string(),
    })
}
