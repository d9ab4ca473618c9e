%% Ping-pong server on plain OTP gen_tcp: POST / with body "ping" answers "pong", anything else
%% 400. One acceptor, one Erlang process per connection; the VM's `http_bin` packet mode parses
%% the request line and headers, the body is read by its Content-Length. Keep-alive throughout.
-module(pingpong).
-export([start/1, acceptor/1]).

start([PortArg]) ->
    Port = list_to_integer(atom_to_list(PortArg)),
    {ok, Listen} = gen_tcp:listen(Port, [binary, {ip, {127, 0, 0, 1}}, {packet, http_bin},
                                         {active, false}, {reuseaddr, true},
                                         {backlog, 1024}, {nodelay, true}]),
    %% One acceptor per scheduler, so accepting 1000 connections at once is not serial.
    [spawn(?MODULE, acceptor, [Listen]) || _ <- lists:seq(1, erlang:system_info(schedulers))],
    receive stop -> ok end.

acceptor(Listen) ->
    {ok, Sock} = gen_tcp:accept(Listen),
    spawn(?MODULE, acceptor, [Listen]),
    request(Sock).

%% Reads one request head, then its body, answers, and loops (keep-alive).
request(Sock) ->
    case gen_tcp:recv(Sock, 0) of
        {ok, {http_request, Method, {abs_path, Path}, _Version}} ->
            headers(Sock, Method, Path, 0, true);
        _ ->
            gen_tcp:close(Sock)
    end.

headers(Sock, Method, Path, Len, KeepAlive) ->
    case gen_tcp:recv(Sock, 0) of
        {ok, {http_header, _, 'Content-Length', _, V}} ->
            headers(Sock, Method, Path, binary_to_integer(V), KeepAlive);
        {ok, {http_header, _, 'Connection', _, V}} ->
            headers(Sock, Method, Path, Len, string:lowercase(V) =/= <<"close">>);
        {ok, {http_header, _, _, _, _}} ->
            headers(Sock, Method, Path, Len, KeepAlive);
        {ok, http_eoh} ->
            body(Sock, Method, Path, Len, KeepAlive);
        _ ->
            gen_tcp:close(Sock)
    end.

body(Sock, Method, Path, Len, KeepAlive) ->
    ok = inet:setopts(Sock, [{packet, raw}]),
    Body = case Len of
               0 -> {ok, <<>>};
               _ -> gen_tcp:recv(Sock, Len, 5000)
           end,
    case Body of
        {ok, B} ->
            {Status, Reply} = case {Method, Path, B} of
                                  {'POST', <<"/">>, <<"ping">>} -> {<<"200 OK">>, <<"pong">>};
                                  _ -> {<<"400 Bad Request">>, <<"bad request">>}
                              end,
            gen_tcp:send(Sock, [<<"HTTP/1.1 ">>, Status,
                                <<"\r\nContent-Type: text/plain\r\nContent-Length: ">>,
                                integer_to_binary(byte_size(Reply)), <<"\r\n\r\n">>, Reply]),
            case KeepAlive of
                true ->
                    ok = inet:setopts(Sock, [{packet, http_bin}]),
                    request(Sock);
                false ->
                    gen_tcp:close(Sock)
            end;
        _ ->
            gen_tcp:close(Sock)
    end.
