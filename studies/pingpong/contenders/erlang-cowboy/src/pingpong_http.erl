%% The HTTP form: POST / with body "ping" -> 200 "pong", anything else 400.
-module(pingpong_http).
-export([init/2]).

init(Req0, State) ->
    {ok, Body, Req1} = cowboy_req:read_body(Req0),
    Req = case {cowboy_req:method(Req1), Body} of
              {<<"POST">>, <<"ping">>} ->
                  cowboy_req:reply(200, #{<<"content-type">> => <<"text/plain">>}, <<"pong">>, Req1);
              _ ->
                  cowboy_req:reply(400, #{<<"content-type">> => <<"text/plain">>}, <<"bad request">>, Req1)
          end,
    {ok, Req, State}.
