export class User {
  constructor(public readonly name: string) {}
}
