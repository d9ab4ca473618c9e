"""grpcio-reflection's client (gRPC's own Python reflection library) against barrage serve's
reflection service (v1alpha, the version that library speaks): the services listed, and the
methods of barrage.test.v1.Test and grpc.health.v1.Health as its descriptor pool reads them
from the files the server sends. One JSON line. Usage: reflect.py HOST:PORT"""
import json
import sys

import grpc
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)


def main():
    with grpc.insecure_channel(sys.argv[1]) as ch:
        db = ProtoReflectionDescriptorDatabase(ch)
        services = sorted(db.get_services())
        pool = DescriptorPool(db)
        test = pool.FindServiceByName("barrage.test.v1.Test")
        methods = [[m.name, m.input_type.full_name, m.output_type.full_name,
                    m.client_streaming, m.server_streaming] for m in test.methods]
        health = [m.name for m in pool.FindServiceByName("grpc.health.v1.Health").methods]
        print(json.dumps({"services": services, "methods": methods, "health": health}))


if __name__ == "__main__":
    main()
