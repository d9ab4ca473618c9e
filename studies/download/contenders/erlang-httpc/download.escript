#!/usr/bin/env escript
%% GET a URL with OTP's httpc in one of its three modes, write the body to OUT (or /dev/null),
%% print bytes and CRC-32 (erlang:crc32/2, incremental), then how the body arrived: the number of
%% chunks (messages) and their median and largest size (`chunks=N chunk_bytes_median=M
%% chunk_bytes_max=X`; sync: one chunk, the whole body).
%%   sync: the whole body as one binary (httpc's default, body in memory)
%%   push: {stream, self}: httpc sends every chunk as a message as fast as it arrives
%%   pull: {stream, {self, once}}: one chunk per httpc:stream_next/1 (the original's `once`)
%% Usage: download.escript sync|push|pull URL OUT SINK
%% Compiled, not interpreted: escript runs its code through erl_eval unless told otherwise, which
%% made every per-chunk loop ~2x slower (the runs before this line was added measured that).
-mode(compile).
main([Mode, Url, Out, Sink]) ->
    {ok, _} = application:ensure_all_started(inets),
    Dest = case Sink of "file" -> Out; _ -> "/dev/null" end,
    {ok, F} = file:open(Dest, [write, raw, binary]),
    {N, Crc, Sizes} = get(list_to_atom(Mode), Url, F),
    ok = file:close(F),
    io:format("bytes=~b crc32=~8.16.0b~n", [N, Crc]),
    {Chunks, Median, Max} = stats(Sizes),
    io:format("chunks=~b chunk_bytes_median=~b chunk_bytes_max=~b~n", [Chunks, Median, Max]);
main(_) ->
    io:format(standard_error, "usage: download.escript sync|push|pull URL OUT SINK~n", []),
    halt(2).

get(sync, Url, F) ->
    {ok, {{_, 200, _}, _Headers, Body}} =
        httpc:request(get, {Url, []}, [{timeout, infinity}], [{body_format, binary}]),
    ok = file:write(F, Body),
    {byte_size(Body), erlang:crc32(Body), count(#{}, Body)};
get(push, Url, F) ->
    {ok, Ref} = httpc:request(get, {Url, []}, [{timeout, infinity}],
                              [{sync, false}, {stream, self}]),
    receive {http, {Ref, stream_start, _Headers}} -> ok end,
    push_loop(Ref, F, 0, erlang:crc32(<<>>), #{});
get(pull, Url, F) ->
    {ok, Ref} = httpc:request(get, {Url, []}, [{timeout, infinity}],
                              [{sync, false}, {stream, {self, once}}]),
    Pid = receive {http, {Ref, stream_start, _Headers, P}} -> P end,
    ok = httpc:stream_next(Pid),
    pull_loop(Ref, Pid, F, 0, erlang:crc32(<<>>), #{}).

push_loop(Ref, F, N, Crc, Sizes) ->
    receive
        {http, {Ref, stream, Bin}} ->
            ok = file:write(F, Bin),
            push_loop(Ref, F, N + byte_size(Bin), erlang:crc32(Crc, Bin), count(Sizes, Bin));
        {http, {Ref, stream_end, _}} -> {N, Crc, Sizes};
        {http, {Ref, {error, Why}}} -> error(Why)
    end.

pull_loop(Ref, Pid, F, N, Crc, Sizes) ->
    receive
        {http, {Ref, stream, Bin}} ->
            ok = file:write(F, Bin),
            ok = httpc:stream_next(Pid),
            pull_loop(Ref, Pid, F, N + byte_size(Bin), erlang:crc32(Crc, Bin), count(Sizes, Bin));
        {http, {Ref, stream_end, _}} -> {N, Crc, Sizes};
        {http, {Ref, {error, Why}}} -> error(Why)
    end.

%% Chunk sizes as a histogram (size => count): constant memory however many chunks arrive.
count(Sizes, Bin) ->
    maps:update_with(byte_size(Bin), fun(C) -> C + 1 end, 1, Sizes).

%% {chunks, median size (the lower median), largest size}.
stats(Sizes) when map_size(Sizes) =:= 0 -> {0, 0, 0};
stats(Sizes) ->
    Sorted = lists:sort(maps:to_list(Sizes)),
    Total = lists:sum([C || {_, C} <- Sorted]),
    {Max, _} = lists:last(Sorted),
    {Total, median(Sorted, (Total + 1) div 2, 0), Max}.

median([{Size, C} | _], Half, Seen) when Seen + C >= Half -> Size;
median([{_, C} | Rest], Half, Seen) -> median(Rest, Half, Seen + C).
