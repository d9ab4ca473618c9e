%% The WebSocket form: GET /ws upgrades; each text message "ping" -> text "pong", any other
%% message -> text "bad request" (the HTTP form's 400: the client counts it as a wrong body).
-module(pingpong_ws).
-export([init/2, websocket_handle/2, websocket_info/2]).

init(Req, State) ->
    %% 60 s without a frame closes the connection, as the HTTP form's keep-alive (cowboy's
    %% default, said here so the two forms stay alike).
    {cowboy_websocket, Req, State, #{idle_timeout => 60000}}.

websocket_handle({text, <<"ping">>}, State) ->
    {[{text, <<"pong">>}], State};
websocket_handle({text, _}, State) ->
    {[{text, <<"bad request">>}], State};
websocket_handle({binary, _}, State) ->
    {[{text, <<"bad request">>}], State};
websocket_handle(_Frame, State) ->
    %% ping/pong control frames: cowboy answers pings itself.
    {[], State}.

websocket_info(_Info, State) ->
    {[], State}.
