%% Ping-pong on cowboy 2.9 in both forms on one listener: `POST /` with body "ping" answers 200
%% "pong" (anything else 400), and `/ws` upgrades to a WebSocket on which each text message
%% "ping" is answered by a text message "pong" (anything else by "bad request"). One Erlang
%% process per connection (cowboy's), so the two forms differ only in the protocol.
%% Usage: erl -noshell -pa ... -s pingpong_cowboy start PORT (run.sh).
-module(pingpong_cowboy).
-export([start/1]).

start([PortArg]) ->
    Port = list_to_integer(atom_to_list(PortArg)),
    {ok, _} = application:ensure_all_started(cowboy),
    Dispatch = cowboy_router:compile([{'_', [{"/", pingpong_http, []},
                                             {"/ws", pingpong_ws, []}]}]),
    {ok, _} = cowboy:start_clear(
                pingpong,
                %% Backlog 1024 as every contender of the study (ranch's default is also 1024,
                %% said here so it stays); no cap on connections (ranch's default is 1024, which
                %% reconnects at c=1000 could hit while closed sockets are being reaped).
                #{socket_opts => [{ip, {127, 0, 0, 1}}, {port, Port}, {backlog, 1024}],
                  max_connections => infinity},
                %% No cap on requests per keep-alive connection (cowboy's default closes after
                %% 1000, a reconnect the other HTTP contenders do not make); 60 s keep-alive.
                #{env => #{dispatch => Dispatch},
                  max_keepalive => infinity,
                  idle_timeout => 60000}),
    receive stop -> ok end.
