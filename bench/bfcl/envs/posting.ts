// TwitterAPI (posting_api.json): posts, retweets, comments and follows of one user.
import { deepCopy, pyEqual, type PyValue } from '../py-value.ts';
import { type Args, type BfclEnv, type Dict, dispatch, isDict, opt, req, str, truthy } from './env.ts';

type Key = string | number;

/** Python's int(k) for a tweet key from the cfg. */
const intKey = (k: string): Key => (/^\s*[-+]?\d+\s*$/.test(k) ? Number(k) : k);

export class TwitterAPI implements BfclEnv {
  username = 'john';
  password = 'john123';
  authenticated: PyValue = false;
  tweets = new Map<Key, PyValue>();
  comments = new Map<Key, PyValue>();
  retweets: Dict = {};
  following_list: PyValue[] = ['alice', 'bob'];
  tweet_counter = 0;

  load(cfg: Dict): void {
    const c = deepCopy(cfg);
    this.username = str(c.username ?? 'john');
    this.password = str(c.password ?? 'john123');
    this.authenticated = 'authenticated' in c ? c.authenticated : false;
    this.tweets = new Map(Object.entries(isDict(c.tweets) ? c.tweets : {}).map(([k, v]) => [intKey(k), v]));
    this.comments = new Map(Object.entries(isDict(c.comments) ? c.comments : {}));
    this.retweets = isDict(c.retweets) ? c.retweets : {};
    this.following_list = Array.isArray(c.following_list) ? c.following_list : ['alice', 'bob'];
    this.tweet_counter = typeof c.tweet_counter === 'number' ? c.tweet_counter : 0;
  }

  state(): Record<string, PyValue> {
    return {
      username: this.username,
      password: this.password,
      authenticated: this.authenticated,
      tweets: this.tweets,
      comments: this.comments,
      retweets: this.retweets,
      following_list: this.following_list,
      tweet_counter: this.tweet_counter,
    };
  }

  private notAuth(what: string): Dict | undefined {
    return truthy(this.authenticated)
      ? undefined
      : { error: `User not authenticated. Please authenticate before ${what}.` };
  }

  private tweetKey(id: PyValue): Key | undefined {
    return [...this.tweets.keys()].find((k) => pyEqual(k, id));
  }

  call(method: string, a: Args): PyValue {
    const r = (name: string): PyValue => req(a, method, name);
    const missing = (id: PyValue): Dict => ({ error: `Tweet with ID ${str(id)} not found.` });
    return dispatch(
      'TwitterAPI',
      {
        authenticate_twitter: () => {
          if (r('username') === this.username && r('password') === this.password) {
            this.authenticated = true;
            return { authentication_status: true };
          }
          return { authentication_status: false };
        },
        posting_get_login_status: () => ({ login_status: truthy(this.authenticated) }),
        post_tweet: () => {
          const content = r('content');
          const denied = this.notAuth('posting');
          if (denied) return denied;
          const tweet: Dict = {
            id: this.tweet_counter,
            username: this.username,
            content,
            tags: opt(a, 'tags', []),
            mentions: opt(a, 'mentions', []),
          };
          this.tweets.set(this.tweet_counter, tweet);
          this.tweet_counter += 1;
          return tweet;
        },
        retweet: () => {
          const id = r('tweet_id');
          const denied = this.notAuth('retweeting');
          if (denied) return denied;
          if (this.tweetKey(id) === undefined) return missing(id);
          const mine = (this.retweets[this.username] ??= []) as PyValue[];
          if (mine.some((x) => pyEqual(x, id))) return { retweet_status: 'Already retweeted' };
          mine.push(id);
          return { retweet_status: 'Successfully retweeted' };
        },
        comment: () => {
          const id = r('tweet_id');
          const text = r('comment_content');
          const denied = this.notAuth('commenting');
          if (denied) return denied;
          if (this.tweetKey(id) === undefined) return missing(id);
          const key = [...this.comments.keys()].find((k) => pyEqual(k, id)) ?? (id as Key);
          const list = (this.comments.get(key) ?? []) as PyValue[];
          this.comments.set(key, list);
          list.push({ username: this.username, content: text });
          return { comment_status: 'Comment added successfully' };
        },
        mention: () => {
          const id = r('tweet_id');
          const names = r('mentioned_usernames');
          const key = this.tweetKey(id);
          if (key === undefined) return missing(id);
          const tweet = this.tweets.get(key) as Dict;
          (tweet.mentions as PyValue[]).push(...(names as PyValue[]));
          return { mention_status: 'Users mentioned successfully' };
        },
        follow_user: () => {
          const who = r('username_to_follow');
          const denied = this.notAuth('following');
          if (denied) return denied;
          if (this.following_list.some((x) => pyEqual(x, who))) return { follow_status: false };
          this.following_list.push(who);
          return { follow_status: true };
        },
        list_all_following: () => this.notAuth('listing following') ?? { following_list: this.following_list },
        unfollow_user: () => {
          const who = r('username_to_unfollow');
          const denied = this.notAuth('unfollowing');
          if (denied) return denied;
          const i = this.following_list.findIndex((x) => pyEqual(x, who));
          if (i < 0) return { unfollow_status: false };
          this.following_list.splice(i, 1);
          return { unfollow_status: true };
        },
        get_tweet: () => {
          const id = r('tweet_id');
          const key = this.tweetKey(id);
          return key === undefined ? missing(id) : (this.tweets.get(key) ?? null);
        },
        get_user_tweets: () => {
          const who = r('username');
          return [...this.tweets.values()].filter((t) => isDict(t) && t.username === who);
        },
        search_tweets: () => {
          const kw = str(r('keyword')).toLowerCase();
          return [...this.tweets.values()].filter(
            (t) =>
              isDict(t) &&
              (str(t.content).toLowerCase().includes(kw) ||
                ((t.tags ?? []) as PyValue[]).some((tag) => str(tag).toLowerCase() === kw)),
          );
        },
        get_tweet_comments: () => {
          const id = r('tweet_id');
          if (this.tweetKey(id) === undefined) return missing(id);
          // Lookups use the given id: comments loaded from the cfg have string keys and stay unseen.
          return this.comments.get(id as Key) ?? [];
        },
        get_user_stats: () => {
          const who = r('username');
          return {
            tweet_count: [...this.tweets.values()].filter((t) => isDict(t) && t.username === who).length,
            following_count: who === this.username ? this.following_list.length : 0,
            retweet_count: ((isDict(this.retweets) && (this.retweets[str(who)] as PyValue[])) || []).length,
          };
        },
      },
      method,
      a,
    );
  }
}
