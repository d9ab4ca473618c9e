#!/usr/bin/env escript
%% GET a URL with OTP's httpc in one of its three modes, write the body to OUT (or /dev/null),
%% print bytes and CRC-32 (erlang:crc32/2, incremental).
%%   sync: the whole body as one binary (httpc's default, body in memory)
%%   push: {stream, self}: httpc sends every chunk as a message as fast as it arrives
%%   pull: {stream, {self, once}}: one chunk per httpc:stream_next/1 (the original's `once`)
%% Usage: download.escript sync|push|pull URL OUT SINK
main([Mode, Url, Out, Sink]) ->
    {ok, _} = application:ensure_all_started(inets),
    Dest = case Sink of "file" -> Out; _ -> "/dev/null" end,
    {ok, F} = file:open(Dest, [write, raw, binary]),
    {N, Crc} = get(list_to_atom(Mode), Url, F),
    ok = file:close(F),
    io:format("bytes=~b crc32=~8.16.0b~n", [N, Crc]);
main(_) ->
    io:format(standard_error, "usage: download.escript sync|push|pull URL OUT SINK~n", []),
    halt(2).

get(sync, Url, F) ->
    {ok, {{_, 200, _}, _Headers, Body}} =
        httpc:request(get, {Url, []}, [{timeout, infinity}], [{body_format, binary}]),
    ok = file:write(F, Body),
    {byte_size(Body), erlang:crc32(Body)};
get(push, Url, F) ->
    {ok, Ref} = httpc:request(get, {Url, []}, [{timeout, infinity}],
                              [{sync, false}, {stream, self}]),
    receive {http, {Ref, stream_start, _Headers}} -> ok end,
    push_loop(Ref, F, 0, erlang:crc32(<<>>));
get(pull, Url, F) ->
    {ok, Ref} = httpc:request(get, {Url, []}, [{timeout, infinity}],
                              [{sync, false}, {stream, {self, once}}]),
    Pid = receive {http, {Ref, stream_start, _Headers, P}} -> P end,
    ok = httpc:stream_next(Pid),
    pull_loop(Ref, Pid, F, 0, erlang:crc32(<<>>)).

push_loop(Ref, F, N, Crc) ->
    receive
        {http, {Ref, stream, Bin}} ->
            ok = file:write(F, Bin),
            push_loop(Ref, F, N + byte_size(Bin), erlang:crc32(Crc, Bin));
        {http, {Ref, stream_end, _}} -> {N, Crc};
        {http, {Ref, {error, Why}}} -> error(Why)
    end.

pull_loop(Ref, Pid, F, N, Crc) ->
    receive
        {http, {Ref, stream, Bin}} ->
            ok = file:write(F, Bin),
            ok = httpc:stream_next(Pid),
            pull_loop(Ref, Pid, F, N + byte_size(Bin), erlang:crc32(Crc, Bin));
        {http, {Ref, stream_end, _}} -> {N, Crc};
        {http, {Ref, {error, Why}}} -> error(Why)
    end.
