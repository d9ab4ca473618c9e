# The seed's Hedwig ping-pong bot (seed 003, ne-sachirou/exconfjp2017 hedwig/lib, as its article
# shows it): cowboy 1.x receives `POST /`, its handler hands the body to the one HTTP adapter
# process (a registered GenServer: every message passes through it), the adapter gives it to the
# robot (Hedwig.Robot.handle_in), the robot dispatches it to its responders, the ping-pong
# responder replies "pong", the reply comes back through the robot to the adapter, and the
# adapter sends the text to the waiting handler process, which answers 200 with it -- or 400 "Bad
# Request" after 500 ms without a reply (a body the responder does not hear). Written from the
# article's code; what is not in the article (the robot, the responder, the port) is marked.

defmodule HedwigDemo.HttpHandler do
  # As in the article: cowboy 1.x, 1000 acceptors, max_connections 2048, on every interface; the
  # port comes from the study (the article: 3000).
  def start do
    dispatch =
      :cowboy_router.compile([
        {
          :_,
          # Not in the article: /ws, the same bot over a WebSocket (HedwigDemo.WsHandler).
          [{"/", __MODULE__, []}, {"/ws", HedwigDemo.WsHandler, []}]
        }
      ])

    {:ok, _} =
      :cowboy.start_http(
        :hedwig_demo,
        1000,
        [port: Application.fetch_env!(:hedwig_demo, :port), max_connections: 2048],
        env: [dispatch: dispatch]
      )
  end

  def init({:tcp, :http}, req, opts), do: {:ok, req, opts}

  def handle(req, state) do
    {:ok, body, req} = :cowboy_req.body(req)
    HedwigDemo.Adapters.Http.message(self(), body)

    {:ok, req} =
      receive do
        msg ->
          :cowboy_req.reply(200, [{"content-type", "text/plain"}], msg, req)
      after
        500 ->
          :cowboy_req.reply(400, [{"content-type", "text/plain"}], "Bad Request", req)
      end

    {:ok, req, state}
  end

  def terminate(_reason, _req, _state), do: :ok
end

defmodule HedwigDemo.WsHandler do
  # Not in the article: the bot over a WebSocket, on cowboy 1.x's websocket handler. Each text
  # message goes to the article's adapter exactly as an HTTP request's body does (the handler's
  # pid as the room), and the adapter's reply -- the text, sent to this process -- goes back as a
  # text message. So the adapter, the robot and the responder are the HTTP form's, unchanged;
  # only the connection lives on. A message no responder hears gets no answer (as in the
  # article's bot; the HTTP form answers 400 after 500 ms, the study's contract for HTTP).
  def init({:tcp, :http}, _req, _opts), do: {:upgrade, :protocol, :cowboy_websocket}

  def websocket_init(_transport, req, opts), do: {:ok, req, opts}

  def websocket_handle({:text, text}, req, state) do
    HedwigDemo.Adapters.Http.message(self(), text)
    {:ok, req, state}
  end

  def websocket_handle(_frame, req, state), do: {:ok, req, state}

  def websocket_info(text, req, state) when is_binary(text), do: {:reply, {:text, text}, req, state}
  def websocket_info(_info, req, state), do: {:ok, req, state}

  def websocket_terminate(_reason, _req, _state), do: :ok
end

defmodule HedwigDemo.Adapters.Http do
  # The article's adapter, unchanged.
  use Hedwig.Adapter

  def init({robot, opts}) do
    GenServer.cast(self(), :after_init)
    {:ok, %{robot: robot, opts: opts}}
  end

  @spec message(pid, binary) :: :ok
  def message(req, msg) do
    GenServer.cast(__MODULE__, {:message, req, %{text: msg}})
  end

  def handle_cast(:after_init, %{robot: robot} = state) do
    Process.register(self(), __MODULE__)
    :ok = Hedwig.Robot.handle_connect(robot)
    {:noreply, state}
  end

  def handle_cast({:message, req, %{text: text}}, %{robot: robot} = state) do
    Hedwig.Robot.handle_in(robot, %Hedwig.Message{
      ref: make_ref(),
      robot: robot,
      room: :erlang.term_to_binary(req),
      text: text,
      user: %Hedwig.User{}
    })

    {:noreply, state}
  end

  def handle_cast({:send, %{room: room, text: text}}, state) do
    Kernel.send(:erlang.binary_to_term(room), text)
    {:noreply, state}
  end

  def handle_cast({:reply, msg}, state) do
    GenServer.cast(self(), {:send, msg})
    {:noreply, state}
  end

  def handle_cast({:emote, msg}, state) do
    GenServer.cast(self(), {:send, msg})
    {:noreply, state}
  end
end

defmodule HedwigDemo.Responders.PingPong do
  # Not in the article: a responder that hears a message of exactly "ping" and replies "pong".
  # (`hear`, not `respond`: the benchmark's body is "ping", not "<botname> ping".)
  use Hedwig.Responder

  @usage """
  ping - Replies pong
  """
  hear ~r/\Aping\z/, msg do
    reply(msg, "pong")
  end
end

defmodule HedwigDemo.Robot do
  # Not in the article: the robot as `mix hedwig.gen.robot` writes it, the adapter named here
  # (Hedwig reads it at compile time; mix would take it from config.exs). The rest of its config
  # (name, responders: the one above; the generator's Help and Ping answer "<name> help" and
  # "<name> ping", not a bare "ping") is in hedwig_demo.app's env, written by build.sh.
  use Hedwig.Robot, otp_app: :hedwig_demo, adapter: HedwigDemo.Adapters.Http

  def handle_connect(%{name: name} = state) do
    if :undefined == :global.whereis_name(name) do
      :yes = :global.register_name(name, self())
    end

    {:ok, state}
  end

  def handle_disconnect(_reason, state) do
    {:reconnect, 5000, state}
  end

  def handle_in(%Hedwig.Message{} = msg, state) do
    {:dispatch, msg, state}
  end

  def handle_in(_msg, state) do
    {:noreply, state}
  end
end

defmodule HedwigDemo.Application do
  # As in the article (Supervisor.Spec, as in 2017).
  use Application

  def start(_type, _args) do
    import Supervisor.Spec, warn: false

    children = [
      worker(HedwigDemo.Robot, []),
      worker(HedwigDemo.HttpHandler, [], function: :start)
    ]

    opts = [strategy: :one_for_one, name: HedwigDemo.Supervisor]
    Supervisor.start_link(children, opts)
  end
end
