// bench/ws.sh's Artillery client, its one function: the closed loop of bench/ws/echo.yml goes on
// while its virtual user is younger than DURATION_S seconds (0: it sends nothing, which measures
// Artillery's own start and end). Artillery's WebSocket engine waits for each reply before the
// next send when the step has a `match`, and fails the virtual user on a reply that is not the
// message (counted under errors.* in the JSON report).
module.exports = {
  running(context, next) {
    if (context.vars.until === undefined) {
      context.vars.until = Date.now() + Number(process.env.DURATION_S) * 1000;
    }
    return next(Date.now() < context.vars.until);
  },
};
