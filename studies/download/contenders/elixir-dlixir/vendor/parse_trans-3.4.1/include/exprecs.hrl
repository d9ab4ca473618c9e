%%% The contents of this file are subject to the Erlang Public License,
%%% Version 1.1, (the "License"); you may not use this file except in
%%% compliance with the License. You may obtain a copy of the License at
%%% http://www.erlang.org/EPLICENSE
%%
%% Software distributed under the License is distributed on an "AS IS"
%% basis, WITHOUT WARRANTY OF ANY KIND, either express or implied. See
%% the License for the specific language governing rights and limitations
%% under the License.
%%
%% The Original Code is exprecs-0.2.
%%
%% Copyright (c) 2014 Ericsson AB
%%
%% Contributor(s): ______________________________________.

%%-------------------------------------------------------------------
%% File    : exprecs.hrl
%% @author  : Ulf Wiger <ulf@wiger.net>
%% @end
%% Description :
%%
%% Created : 25 Feb 2010 by Ulf Wiger <ulf@wiger.net>
%%-------------------------------------------------------------------
-compile({parse_transform, exprecs}).
