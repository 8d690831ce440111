import { describe, expect, it } from "vitest";
import { serverConnection } from "~/db/server-url";

describe("serverConnection", () => {
  it("leaves a host:port URL as it is", () => {
    expect(serverConnection("postgres://app:pw@db.internal:6432/memory?sslmode=require")).toEqual({
      url: "postgres://app:pw@db.internal:6432/memory?sslmode=require",
    });
  });

  it("turns a libpq-style socket directory into the socket path, with the URL's port or 5432", () => {
    expect(serverConnection("postgres://postgres@localhost/memory?host=/var/run/postgresql")).toEqual({
      url: "postgres://postgres@localhost/memory",
      path: "/var/run/postgresql/.s.PGSQL.5432",
    });
    expect(serverConnection("postgresql:///memory?host=/tmp/&application_name=x")).toEqual({
      url: "postgresql:///memory?application_name=x",
      path: "/tmp/.s.PGSQL.5432",
    });
    expect(serverConnection("postgres://u@localhost:5433/m?host=/run/pg").path).toBe("/run/pg/.s.PGSQL.5433");
  });

  it("ignores a host parameter that is not a directory", () => {
    expect(serverConnection("postgres://u@localhost/m?host=db2").url).toBe("postgres://u@localhost/m?host=db2");
  });
});
